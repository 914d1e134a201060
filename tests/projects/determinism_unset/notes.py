# CUBLAS_WORKSPACE_CONFIG is documented here, never set: the raw scan finds the word, the summary
# finds no assignment.
import os

WORKSPACE = os.environ.get("CUBLAS_WORKSPACE_CONFIG")
