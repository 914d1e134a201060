import numpy as np
from torch.utils.data import DataLoader

import data
from data import GlobalDraws, RngDataset, WorkerSeeded
from library import ExternalDataset

shuffled = DataLoader(RngDataset(0), batch_size=4, num_workers=4)  # expect: PTL401
by_module = DataLoader(data.RngDataset(1), batch_size=4, num_workers=2)  # expect: PTL401


def global_only(worker_id):
    np.random.seed(worker_id)


reseeds_globals = DataLoader(RngDataset(0), num_workers=4, worker_init_fn=global_only)  # expect: PTL401
seeded_per_worker = DataLoader(WorkerSeeded(0), batch_size=4, num_workers=4)
global_streams = DataLoader(GlobalDraws(), batch_size=4, num_workers=4)
library = DataLoader(ExternalDataset(), batch_size=4, num_workers=4)
no_workers = DataLoader(RngDataset(0), batch_size=4, num_workers=0)
