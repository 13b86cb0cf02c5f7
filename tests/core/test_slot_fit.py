"""The slot model's fit learns which candidate answers, and when none of them does."""

from __future__ import annotations

import numpy as np

from memoryos_core.answer.slot_model import SlotModel, fit_choice


def test_the_fit_learns_the_answering_feature_and_none_where_no_candidate_has_it():
    rng = np.random.default_rng(7)
    xs, answers = [], []
    for k in range(200):
        x = rng.normal(size=(int(rng.integers(2, 8)), 3)) * 0.3
        if k % 3:  # an answer among them: its first feature stands out
            right = int(rng.integers(0, len(x)))
            x[right, 0] += 2.0
            answers.append([right])
        else:  # nothing told answers it
            answers.append([])
        xs.append(x)
    xs.append(np.zeros((0, 3)))  # a question with no candidate at all
    answers.append([])
    weights, none = fit_choice(xs, answers, steps=500)
    model = SlotModel(("a", "b", "c"), weights, none, 0.5, 0.3, "test")
    asked = np.array([[0.1, 0.2, -0.1], [2.1, 0.0, 0.1], [-0.2, 0.1, 0.0]])
    assert int(np.argmax(model.choice(asked))) == 1 and model.choice(asked)[1] > 0.5
    # none of them stands out: "none" holds most of the probability
    assert model.choice(asked[[0, 2]]).sum() < 0.5
