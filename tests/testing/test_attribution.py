"""Which method a failure is reported under, fast: from the sandbox's exception descriptions written here."""

from __future__ import annotations

import pytest

from grader.outputs.failures import NOT_RUN, Ended, render_output
from grader.testing import Check, Failure, StudentFault
from grader.testing.attribution import culprit, handout


def raised(etype: str, message: str, function: str = "", file: str = "micrograd/engine.py", during: str = "",
           **where: str) -> StudentFault:
    """A fault as the judge makes it from the sandbox's description of an exception in the student's code."""
    error = {"type": etype, "message": message, "during": during,
             "where": {"file": file, "line": 12, "function": function, "source": "...", **where} if function else None}
    return StudentFault("raised", f"your code raised {etype}: {message}", error)


@pytest.mark.parametrize("fault, declared, expected", [
    # a method that does not exist names itself, wherever the probe called it from
    (raised("AttributeError", "'Value' object has no attribute 'tanh'"), "Value.backward", "Value.tanh"),
    (raised("AttributeError", "'Value' object has no attribute 'exp'", "sigmoid"), "Value.sigmoid", "Value.exp"),
    # an attribute the constructor sets: the constructor's fault
    (raised("AttributeError", "'Value' object has no attribute '_prev'", "_backward"), "Value.backward",
     "Value.__init__"),
    (raised("AttributeError", "'Neuron' object has no attribute 'zero_grad'"), "MLP", "Module.zero_grad"),
    # an operator Python could not apply: 1 + x needs __radd__, x + 1 needs __add__ to take a number
    (raised("TypeError", "unsupported operand type(s) for +: 'int' and 'Value'"), "Value.__sub__", "Value.__radd__"),
    (raised("TypeError", "unsupported operand type(s) for ** or pow(): 'Value' and 'Value'"), "Value.tanh",
     "Value.__pow__"),
    (raised("TypeError", "bad operand type for unary -: 'Value'"), "Value.__sub__", "Value.__neg__"),
    # the innermost frame of the student's code: a helper an earlier test established, named by its function
    (raised("TypeError", "can't multiply", "__mul__"), "Value.__truediv__", "Value.__mul__"),
    (raised("NotImplementedError", "Task 2.3: implement Value.exp", "exp"), "Value.sigmoid", "Value.exp"),
    # a _backward closure: the node whose closure ran names the operation
    (raised("ZeroDivisionError", "float division by zero", "_backward",
            during="calling _backward of a node made by '+'"), "Value.__sub__", "Value.__add__"),
    (raised("ValueError", "math domain error", "_backward", during="calling _backward of a node made by '**-1'"),
     "Value.__truediv__", "Value.__pow__"),
    # ... or its qualified name, when the sandbox reports one
    (raised("KeyError", "'x'", "_backward", qualname="Value.__mul__.<locals>._backward"), "Value.backward",
     "Value.__mul__"),
    # not more than the case says: no answer
    (raised("ZeroDivisionError", "float division by zero", "_backward", during="calling backward() on n3"),
     "Value.backward", None),
    (raised("ValueError", "bad", "__call__", file="micrograd/nn.py"), "MLP", None),
    (raised("AttributeError", "'int' object has no attribute 'data'"), "Value.__add__", None),
    (raised("RuntimeError", "boom", "my_helper"), "Value.backward", None),
])
def test_the_method_at_fault_is_the_one_whose_own_code_failed(fault, declared, expected):
    assert culprit(fault.error, declared) == expected


def test_an_ambiguous_function_name_goes_to_the_case_s_own_method():
    fault = raised("ValueError", "bad", "__call__", file="micrograd/nn.py")
    assert culprit(fault.error, "Layer.__call__") == "Layer.__call__"
    assert culprit(raised("TypeError", "x", "__init__").error, "Value.__add__") == "Value.__init__"  # engine.py: Value's


def test_a_case_about_backward_failing_in_add_s_closure_is_add_s_with_add_s_hint():
    check = Check()
    fault = raised("AttributeError", "'Value' object has no attribute 'gradd'", "_backward",
                   during="calling _backward of a node made by '+'")
    with check.case("x0 - x1 at (5, 2)", method="Value.__sub__", hint="a - b is a + (-b): the case's own hint"):
        raise fault
    case = check.failures[0]
    assert case.method == "Value.__add__" and case.about == "Value.__sub__"
    assert case.hint == handout().hints["Value.__add__"] and "the case's own hint" not in case.message
    assert case.message.startswith("Value.__add__: your code raised AttributeError")


def test_a_missing_method_is_named_with_how_to_add_it_and_a_wrong_value_keeps_the_case_s_hint():
    check = Check()
    with check.case("tanh(0.5)", method="Value.tanh", hint="use the output t"):
        raise raised("AttributeError", "'Value' object has no attribute 'tanh'")
    with check.case("tanh(0.7)", method="Value.tanh", hint="use the output t"):
        raise Failure("x0.grad was 0.5, expected 0.8")
    missing, wrong = check.failures
    assert missing.method == "Value.tanh" and missing.hint == "Value.tanh does not exist: define it in class Value, " \
                                                             "with the handout's name"
    assert wrong.method == "Value.tanh" and wrong.hint == "use the output t"


def test_code_that_could_not_be_loaded_is_no_method_s_fault_and_the_test_says_only_not_run():
    check = Check()
    fault = StudentFault("import", "your micrograd/engine.py could not be imported: it raised SyntaxError", {})
    for title in ("x0 + x1", "x0 * x1"):
        with check.case(title, method="Value.__add__", hint="a hint"):
            raise fault
    assert all(c.not_run and c.method is None and c.hint is None for c in check.failures)
    assert render_output(check.cases) == NOT_RUN
    # the test's own verdict on cases that could not run did not run either; a timeout after them did
    assert render_output(check.cases, Ended("XOR was learned for 0 seeds", not_run=True)) == NOT_RUN
    assert render_output(check.cases, Ended("your code did not finish", title="x0 / x1")) != NOT_RUN


def test_cases_failing_with_the_same_error_are_shown_once_with_how_many_more():
    check = Check()
    for x in (1, 2, 3):
        with check.case(f"x0 + {x}", method="Value.__add__" if x == 1 else "Value.__radd__", hint=f"hint {x}"):
            raise raised("AttributeError", "'int' object has no attribute 'data'", "__add__",
                         during=f"forward pass: n1 = x0 + {x}")
    with check.case("x0 * 2", method="Value.__mul__"):
        raise Failure("gave 1, expected 4")
    output = render_output(check.cases)
    assert output.count("'int' object has no attribute 'data'") == 1 and "(the same error in 2 more cases)" in output
    assert output.splitlines()[0] == "0 of 4 case(s) passed." and "✗ x0 * 2" in output


def test_a_qualified_name_gives_a_helper_only_as_a_short_identifier():
    assert culprit(raised("ValueError", "x", "f", qualname="Value._wrap.<locals>.f").error) == "Value._wrap"
    for hostile in ("Value." + "a" * 60, "Value.=cmd()", "Other.__add__"):
        assert culprit(raised("ValueError", "x", "f", qualname=hostile).error) is None


def test_in_a_notebook_every_class_is_in_the_one_module():
    fault = raised("ValueError", "x", "__init__", notebook="nb.ipynb")
    assert culprit(fault.error, "Neuron.__call__") is None and culprit(fault.error, "Neuron.__init__") == "Neuron.__init__"


def test_a_constructor_refusing_the_handouts_parameter_is_at_fault_but_a_caller_leaving_one_out_is():
    """``Neuron.__init__() got an unexpected keyword argument 'nonlin'`` raised where Layer.__init__ calls it is
    Neuron's signature; ``Layer(x)`` in MLP.__call__ leaving out an argument is MLP.__call__'s (issue 25)."""
    where = {"file": "micrograd/nn.py", "function": "__init__", "qualname": "Layer.__init__"}
    refused = {"type": "TypeError", "message": "Neuron.__init__() got an unexpected keyword argument 'nonlin'",
               "where": where}
    assert culprit(refused, "Layer.__init__") == "Neuron.__init__"
    left_out = {"type": "TypeError", "message": "Layer.__init__() missing 1 required positional argument: 'nout'",
                "where": {"file": "micrograd/nn.py", "function": "__call__", "qualname": "MLP.__call__"}}
    assert culprit(left_out, "MLP.__call__") == "MLP.__call__"


def test_an_overflow_in_a_helper_or_in_exp_called_by_tanh_is_tanhs_with_the_stability_hint():
    from grader.testing.cases import attribute

    for qualname, function in (("Value._exp", "_exp"), ("Value.exp", "exp")):
        fault = StudentFault("raised", "your code raised OverflowError: math range error",
                             {"type": "OverflowError", "message": "math range error",
                              "where": {"file": "micrograd/engine.py", "function": function, "qualname": qualname}})
        method, hint = attribute(fault, "Value.tanh", "use the output t, not the input x")
        assert method == "Value.tanh" and hint is not None and "math.tanh(x)" in hint
