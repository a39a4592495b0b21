"""Attacks with values the judge computes on: no value a submission supplies can make the judge withhold its result.

The rule these tests pin (``docs/explanation/judge-and-sandbox.md``, "The judge trusts nothing the sandbox can
touch"): whatever the judge computes from a value a submission supplied (a question a probe asks the judge, answered
by its module's ``JUDGED`` side; an answer read by its ``ANSWERS`` parser; a check or test doing arithmetic on a
parsed answer, or running the reference on it) is typed and bounded first, and what the judge cannot handle fails
*that student's case* with a message saying why: a number too large for a float, not a real number, nested deeper
than the grader reads. Any other exception escaping a test is a grader error, and the score is withheld: a
submission that could cause one would turn its low score into a re-run that fails the same way.

Each test plants one such value where the judge meets it, at unit level: a judge's side called directly (a refusal
is :class:`~grader.testing.judged.AskRefused`, which fails the student's probe with its message), a parser or a check
called with the parsed answer. ``tests/judge/test_forged_later_assignments.py`` grades a template with three of them
planted (its ``PLANTED``) end to end, in a run it makes anyway.
"""

from __future__ import annotations

import math

import pytest
from hidden_tests import load_hidden

from assignments.classifier.checks import model_spec as classifier_spec
from assignments.gradcheck.checks import completed, function
from assignments.gradcheck.judged import Functions
from assignments.graph.checks import draw
from assignments.graph.dot import parse as parse_dot
from assignments.graph.drawings import check_records, expected_drawing
from assignments.graph.labels import MAX_GROUPS, record_fields
from assignments.graph.specs import dot_spec
from assignments.shared.checks import architectures, graphs
from assignments.shared.checks.derived import BaseCalls
from grader.judge.answers import MalformedAnswer, parse
from grader.testing import Check, Failure
from grader.testing.judged import AskRefused

NOT_A_NUMBER = {"nonnumeric": "Value", "repr": "Value(data=0.5, grad=0.0)"}
"""What a probe reports for an object where a number belongs (a ``Value`` as a loss's ``data``)."""


def functions(engine: str = "once", spec: dict | None = None) -> Functions:
    """The judge's side of one ``gradcheck_*`` call, on a small function of two inputs (or ``spec``)."""
    spec = spec or completed(function([0.5, -1.0], [["mul", 0, 1], ["tanh", 2]]))
    return Functions([spec], [spec, 1e-6, False], engine)


# --- gradcheck: the questions a student's checker asks the judge about f ------------------------------------------

@pytest.mark.parametrize(("topic", "payload", "says"), [
    ("call", {"f": 0, "at": [10**400, 1.0]}, "an input is a number too large for the grader (about 10**400"),
    ("forward", {"op": "mul", "args": [-(10**400), 2.0]}, "an operand is a number too large for the grader (about "
                                                           "-10**400"),
    ("forward", {"op": ["mul"], "args": [1.0, 2.0]}, "not an operation of the engine"),
    ("forward", {"op": "add", "args": [True, 2.0]}, "an operand is not a number"),
    ("call", {"f": 0, "at": ["1.0", 1.0]}, "an input is not a number"),
    ("backward", {"call": [[[0]]], "node": 0}, "a call number is a whole number, not a list"),
    ("locals", {"call": 10**300}, "there is no call that large"),
])
def test_a_checker_asking_about_f_with_a_value_no_float_holds_is_refused_with_why(topic, payload, says):
    """A number too large for a float (``float(10**400)`` raised OverflowError in the judge), an operation that is
    no text (an unhashable key), a call number of the wrong type: each is refused, so the student's probe fails
    with the sentence, and the judge's side keeps answering."""
    judged = functions()
    with pytest.raises(AskRefused, match="^" + says.replace("(", r"\(").replace("*", r"\*")):
        judged.answer(topic, payload)
    assert judged.answer("call", {"f": 0, "at": [0.5, -1.0]})["call"] == 0


@pytest.mark.parametrize(("op", "args", "value"), [
    ("pow", [-2.0, 0.5], math.nan),  # a complex result
    ("mul", [1e308, 1e308], math.inf),
    ("exp", [1e308], math.nan),  # OverflowError in math
    ("sum", [math.inf, -math.inf], math.nan),  # ValueError in math.fsum
    ("truediv", [1.0, 0.0], math.nan),
])
def test_arithmetic_outside_a_float_s_range_is_answered_as_the_float_it_gives(op, args, value):
    got = functions().answer("forward", {"op": op, "args": args})
    assert type(got) is float and (math.isnan(got) if math.isnan(value) else got == value)


# --- value_ops/backward/mlp: a derived operation's calls, as a student's answer reports them ------------------------

class ReportsPowOfANegativeBase:
    """A ``student`` fixture whose ``derived_calls`` answer says the operation called ``(-2.0) ** 0.5``."""

    def __call__(self, probe: str, *args: object) -> dict:
        if probe == "derived_calls":
            return {"calls": [["__pow__", {"value": -2.0}, {"const": 0.5}]]}
        return {"data": [0.0, 0.0], "grad": [0.0, 0.0]}


def test_a_derived_operation_seen_calling_a_power_with_no_real_value_keeps_its_own_failure():
    """The judge checks each reported call against ``math`` (``graphs.evaluate``), where ``(-2.0) ** 0.5`` is
    complex: ``float()`` of it raised TypeError, outside what the check catches. Outside ``math``'s domain, a call is
    no finding: the failure stays with the derived operation."""
    assert BaseCalls(ReportsPowOfANegativeBase())(graphs.binary("truediv", 1.0, 2.0), "Value.__truediv__") is None
    with pytest.raises(ValueError, match="not a real number"):
        graphs.evaluate(graphs.binary("pow", -2.0, graphs.const(0.5)))


def test_a_training_loss_that_is_no_number_fails_the_xor_case_with_why():
    """``architectures.identify`` compared each network's loss with the student's first one by ``math.isclose``,
    which raised TypeError on a non-number's marker (a loss whose ``data`` is a ``Value``)."""
    mlp = load_hidden("mlp")
    initial = [round(-0.9 + 0.05 * k, 2) for k in range(37)]
    got = {"initial": initial, "final": initial, "losses": [NOT_A_NUMBER], "steps": 0, "preds": [0.0] * 4,
           "zero_grad": None}
    assert architectures.identify(2, [4, 4, 1], initial, mlp.XOR_X, mlp.XOR_Y, NOT_A_NUMBER) == []
    with pytest.raises(Failure, match="your network's loss is a Value object .*, not a number"):
        mlp.xor_verdict(got, lambda *args: {})
    mlp.same_network(got, {"losses": [0.5]}, lambda *args: pytest.fail("nothing to ask"))  # no network fits it


# --- graph: the DOT text to_dot returns ---------------------------------------------------------------------------

def test_a_record_label_nested_thousands_of_braces_deep_is_an_unreadable_record_not_a_crash():
    """Braces inside a quoted label pass the bounds on the DOT text (they count only outside strings), and the record
    parser recursed once per brace: RecursionError. Past :data:`MAX_GROUPS` levels a label is not read."""
    assert record_fields("{" * 5000 + "}" * 5000) is None
    assert record_fields("{ " * MAX_GROUPS + "data 1.0000" + " }" * MAX_GROUPS) is not None
    spec = dot_spec([1.0, 2.0, 3.0], [[], [], [0, 1]], ["", "", "+"])
    deep = "{" * 1500 + "}" * 1500

    def to_dot(probe: str, spec: dict, rankdir: object, most: int) -> dict:
        text = f'digraph {{ rankdir=LR; n1 [shape=record, label="{deep}"]; }}'
        return {"dot": text, "length": len(text), "ids": [1, 2, 3]}

    with pytest.raises(Failure, match=f"nests braces more than {MAX_GROUPS} deep"):
        check_records(draw(to_dot, spec), expected_drawing(spec), spec)


def test_a_dot_text_of_hundreds_of_nested_groups_is_refused_before_pydot_spends_seconds_on_it():
    """Groups ``{ }`` were bounded by depth only, and pydot's parser takes about 40 ms per group nested three deep:
    a text of 360 of them, within the bounds on names and characters, cost the judge 15 s per drawing (a minute per
    submission). A text may open 8 groups and one per 16 names it may have."""
    text = "digraph { " + " ".join(["{ { { a } } }"] * 60) + " }"
    with pytest.raises(Failure, match="opens 181 groups { }, more than the 30 that a drawing of this graph can need"):
        parse_dot(text, 364)
    assert parse_dot("digraph { rankdir=LR; " + " ".join(["{ rank=same; a b }"] * 10) + " }", 364) is not None


# --- classifier, modules: parsed answers the tests read -------------------------------------------------------------

def test_a_neuron_reported_as_two_parts_is_a_malformed_answer():
    """The test of ``Neuron.__init__`` unpacks the one part a Neuron is: two of them raised ValueError there."""
    spec = classifier_spec("Neuron", 3, "relu")
    answer = {"parts": [[3, "relu"]], "activations": None, "all_values": True, "distinct": 4, "data": [0.1] * 4}
    assert parse("classifier_structure", [spec], answer)["parts"] == [(3, 1, "relu")]
    with pytest.raises(MalformedAnswer, match="one item for a Neuron"):
        parse("classifier_structure", [spec], {**answer, "parts": [[3, "relu"], [3, "relu"]]})


def test_weights_kept_as_plain_floats_fail_the_linear_init_case_with_why():
    """An honest bug: ``Linear.__init__`` keeping floats (no ``data``) makes every weight a non-number's marker, and
    the test took ``max()`` of the numbers among them: of none, ValueError."""
    modules = load_hidden("modules")
    answer = {"rows": [9] * 5, "bias": 5, "sizes": [9, 5], "all_values": False, "distinct": 50,
              "data": [{"nonnumeric": "NoneType", "repr": "None"}] * 50}
    check = Check()
    modules.test_linear_init_scale(lambda *args: answer, check)
    assert [c.failure is not None for c in check.cases] == [True, True]
    assert "50 of the 50 weights and biases were not numbers" in check.cases[0].message


def test_a_linear_layer_answer_without_its_inputs_gradients_fails_the_case_with_why():
    """``input_grads`` may be null (the output did not reach the inputs); compared as a list it raised TypeError."""
    modules = load_hidden("modules")

    def reference(probe: str, nin: int, nout: int, weights: object, xs: list, c: object) -> dict:
        return {"outputs": [{"list": [0.0] * nout, "count": nout}] * len(xs), "grads": [0.0] * ((nin + 1) * nout),
                "input_grads": [0.0] * nin}

    check = Check()
    modules.test_linear_on_random_inputs(lambda *args: {**reference(*args), "input_grads": None}, reference, check)
    assert all(c.failure is not None and "backward() cannot reach them" in c.message for c in check.cases)
