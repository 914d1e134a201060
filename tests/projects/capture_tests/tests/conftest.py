import torch._dynamo

# Every test the runner collects compiles with scalar capture on.
torch._dynamo.config.capture_scalar_outputs = True
