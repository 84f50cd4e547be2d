"""One step of a bank of discrete PID controllers (robotics / process control), one controller per element:

e = setpoint - measurement
I' = I + e * dt
u = clamp(kp * e + ki * I' + kd * (e - e_prev) / dt, -u_max, u_max)

Returns the command u, the new integral I' and the error e (the next step's e_prev). 1-D, BLOCK elements per
program, int64 offsets (banks past 2**31 controllers).
"""

import torch
import triton
import triton.language as tl

import kcheck

BUG_CLASS = 'int32-overflow'


@triton.jit
def pid_kernel(sp_ptr, meas_ptr, integ_ptr, eprev_ptr, u_ptr, integ_out_ptr, err_ptr, n,
               kp, ki, kd, dt, u_max, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    sp = tl.load(sp_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    meas = tl.load(meas_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    integ = tl.load(integ_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    eprev = tl.load(eprev_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    e = sp - meas
    integ = integ + e * dt
    u = kp * e + ki * integ + kd * (e - eprev) / dt
    u = tl.where(u > u_max, u_max, tl.where(u < -u_max, -u_max, u))
    tl.store(u_ptr + offs, u.to(u_ptr.dtype.element_ty), mask=mask)
    tl.store(integ_out_ptr + offs, integ.to(integ_out_ptr.dtype.element_ty), mask=mask)
    tl.store(err_ptr + offs, e.to(err_ptr.dtype.element_ty), mask=mask)


def pid_step(sp, meas, integ, eprev, kp, ki, kd, dt, u_max, BLOCK: int = 1024):
    sp, meas, integ, eprev = (t.contiguous() for t in (sp, meas, integ, eprev))
    u, integ_out, err = (torch.empty_like(sp) for _ in range(3))
    n = sp.numel()
    if n:
        pid_kernel[(triton.cdiv(n, BLOCK),)](sp, meas, integ, eprev, u, integ_out, err, n, kp, ki, kd, dt, u_max,
                                            BLOCK=BLOCK)
    return u, integ_out, err


def reference(sp, meas, integ, eprev, kp, ki, kd, dt, u_max):
    e = sp - meas
    integ = integ + e * dt
    u = (kp * e + ki * integ + kd * (e - eprev) / dt).clamp(-u_max, u_max)
    return u, integ, e


spec = kcheck.Spec(
    name="hx27_pid_controller_step",
    kernel=pid_step,
    reference=reference,
    inputs=[kcheck.Tensor("N", name="setpoint"), kcheck.Tensor("N", name="measurement"),
            kcheck.Tensor("N", name="integral"), kcheck.Tensor("N", name="prev_error"),
            kcheck.Scalar(1.2, name="kp"), kcheck.Scalar(0.4, name="ki"), kcheck.Scalar(0.05, name="kd"),
            kcheck.Scalar(0.01, name="dt"), kcheck.Scalar(50.0, name="u_max")],
    dims={"N": kcheck.Dim(nominal=4096, real=())},
    configs=[{"BLOCK": 1024}, {"BLOCK": 256}],
)
