#!/bin/bash
# The guest itself works: stock rdma-core 44 (the system's libraries) lists rxe0/rxe1, runs ibv_rc_pingpong and
# rping. If this fails, every other failure in the suite is suspect.
exec bash "$(dirname "$0")/../smoke.sh"
