"""Run under ``mpirun -n N``: the last rank raises while the others wait in a barrier. The
uncaught exception must end the whole job (MPI abort) with its traceback, not leave the other
ranks waiting until the collectives' timeout."""

import ferrograd.distributed as dist

dist.init_process_group()
if dist.get_rank() == dist.get_world_size() - 1:
    raise ZeroDivisionError("the last rank fails before the barrier")
dist.barrier()
print("unreachable: the barrier completed")
