"""Bad specs get a clear error naming the argument, the value and the fix."""

import pytest
import torch

import kcheck
from kcheck import SpecError


def ok(**kw):
    args = dict(name="k", kernel=torch.neg, reference=torch.neg, inputs=[kcheck.Tensor("N")])
    args.update(kw)
    return kcheck.Spec(**args)


@pytest.mark.parametrize(("kw", "message"), [
    ({"name": "my kernel"}, "name='my kernel': give an identifier"),
    ({"kernel": 3}, "kernel=3: give a callable"),
    ({"inputs": []}, "inputs=[]: declare at least one input"),
    ({"inputs": [torch.zeros(3)]}, "inputs[0]=tensor([0., 0., 0.]): use kcheck.Tensor"),
    ({"dtypes": ["fp33"]}, "dtypes='fp33': use one of"),
    ({"dims": {"Q": kcheck.Dim()}}, "dims='Q': no input or output uses dimension 'Q'; known: ['N']"),
    ({"reduce": ["K"]}, "reduce='K': name a dimension the spec uses: ['N']"),
    ({"patterns": ["gaussian"]}, "patterns='gaussian': use names from"),
    ({"seeds": 0}, "seeds=0: give an int >= 1"),
    ({"seeds": 22704717}, "seeds=22704717: give an int >= 1 and <= 1000"),
    ({"baseline_factor": 0.5}, "baseline_factor=0.5: give a float >= 1"),
    ({"properties": [lambda ctx: None]}, "use kcheck.props.* or kcheck.Property(name, fn)"),
])
def test_bad_spec_arguments(kw, message):
    with pytest.raises(SpecError) as info:
        ok(**kw)
    assert message in str(info.value)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: kcheck.Tensor("N", 2.5), "Tensor(*dims)=2.5: each dimension is a name"),
    (lambda: kcheck.Tensor("N", pattern="noise"), "Tensor(pattern)='noise'"),
    (lambda: kcheck.Index("T", high=1.5), "Index(high)=1.5"),
    (lambda: kcheck.Index("T", high=2**63), "Index(high)=9223372036854775808: give an int <= 2**63 - 1"),
    (lambda: kcheck.Index("T", high="V", dtype=torch.float32), "Index(dtype)=torch.float32: give an integer dtype"),
    (lambda: kcheck.Dim(nominal=100, multiple_of=16), "Dim.nominal=100: give a multiple of multiple_of=16"),
    (lambda: kcheck.Dim(max=0), "Dim.max=0"),
])
def test_bad_input_declarations(make, message):
    with pytest.raises(SpecError) as info:
        make()
    assert message in str(info.value)


def test_spec_error_is_a_kcheck_error_and_a_value_error():
    with pytest.raises(kcheck.KcheckError):
        ok(seeds="3")
    err = SpecError("seeds", "3", "give an int")
    assert isinstance(err, ValueError) and (err.argument, err.value, err.fix) == ("seeds", "3", "give an int")


def test_raw_triton_kernel_is_refused_with_the_fix():
    triton = pytest.importorskip("triton")
    import triton.language as tl

    @triton.jit
    def k(x_ptr):
        tl.store(x_ptr, 1.0)

    spec = ok(kernel=k)
    with pytest.raises(SpecError, match="needs a grid: pass a launcher"):
        kcheck.matrix(spec)


def test_unknown_case_filter_is_an_error():
    with pytest.raises(SpecError, match="no case id matches"):
        kcheck.check(ok(), cases="k[N=12345")


@pytest.mark.parametrize("make, argument, suggestion", [
    (lambda: kcheck.Spec(name="a", kernel=torch.add, reference=torch.add, inputs=[kcheck.Tensor("N")],
                         precisions=("fp32",)), "precisions", "'dtypes'"),
    (lambda: kcheck.Spec(name="a", kernel=torch.add, reference=torch.add, inputs=[kcheck.Tensor("N")],
                         referense=torch.add), "referense", "'reference'"),
    (lambda: kcheck.Dim(nominl=8), "nominl", "'nominal'"),
    (lambda: kcheck.Tensor("N", dtyp=torch.float32), "dtyp", "'dtype'"),
    (lambda: kcheck.Index("N", hi="V"), "hi", "'high'"),
    (lambda: kcheck.Scalar(valu=1.0), "valu", "'value'"),
])
def test_a_misspelt_argument_is_a_spec_error_with_the_close_names(make, argument, suggestion):
    with pytest.raises(kcheck.SpecError) as err:
        make()
    assert err.value.argument == argument and suggestion in str(err.value)
