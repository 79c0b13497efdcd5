# pyverbs smoke test for the release cases (70-release), run with the release's own python3-pyverbs inside its
# root: open the device, query it, its port and a GID, then a PD, an MR, a CQ and an RC QP moved to INIT, and close
# everything. Prints one PYVERBS-ATTR line (values both libraries must report alike) and one PYVERBS-OBJ line (handles,
# which differ from run to run), or a traceback and exit status 1.
#   python3 pyverbs_smoke.py DEVICE GID_INDEX
import sys

import pyverbs.device as d
from pyverbs.cq import CQ
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr

try:  # rdma-core 65: enum classes
    from pyverbs.libibverbs_enums import ibv_access_flags, ibv_qp_type

    RC = ibv_qp_type.IBV_QPT_RC
    ACCESS = ibv_access_flags.IBV_ACCESS_LOCAL_WRITE | ibv_access_flags.IBV_ACCESS_REMOTE_WRITE
except (ImportError, AttributeError):  # rdma-core 56: module-level constants
    import pyverbs.enums as e

    RC = e.IBV_QPT_RC
    ACCESS = e.IBV_ACCESS_LOCAL_WRITE | e.IBV_ACCESS_REMOTE_WRITE


def main():
    dev, gid_index = sys.argv[1], int(sys.argv[2])
    names = sorted(x.name.decode() for x in d.get_device_list())
    ctx = d.Context(name=dev)
    attr = ctx.query_device()
    port = ctx.query_port(1)
    gid = ctx.query_gid(1, gid_index)
    pd = PD(ctx)
    mr = MR(pd, 4096, ACCESS)
    cq = CQ(ctx, 16)
    cap = QPCap(max_send_wr=4, max_recv_wr=4, max_send_sge=1, max_recv_sge=1)
    qp = QP(pd, QPInitAttr(qp_type=RC, scq=cq, rcq=cq, cap=cap))
    qp.to_init(QPAttr())
    print(f"PYVERBS-ATTR devices={','.join(names)} node_guid={attr.node_guid} max_qp={attr.max_qp} "
          f"max_cq={attr.max_cq} max_mr_size={attr.max_mr_size} max_qp_wr={attr.max_qp_wr} "
          f"port_state={int(port.state)} active_mtu={int(port.active_mtu)} gid={gid}")
    print(f"PYVERBS-OBJ lkey={mr.lkey:#x} rkey={mr.rkey:#x} qpn={qp.qp_num} qp_state={int(qp.qp_state)}")
    qp.close()
    cq.close()
    mr.close()
    pd.close()
    ctx.close()


main()
