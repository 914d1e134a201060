"""tinygpt: a small character-level GPT."""
