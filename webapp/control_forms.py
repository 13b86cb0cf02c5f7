"""Forms of the user's control over their memory and account: search, forget, correct, delete."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import BooleanField, PasswordField, SelectField, StringField
from wtforms.validators import DataRequired, Length, Optional

from memoryos_core.memory.persona import LEVELS


class SearchForm(FlaskForm):
    class Meta:
        csrf = False  # a GET form: reading only

    q = StringField("Search your memory", validators=[DataRequired(), Length(max=500)])


class ForgetForm(FlaskForm):
    everywhere = BooleanField("Also remove it from every saved version and leave no trace of"
                              " it on disk (this cannot be undone)")
    understood = BooleanField("I understand that this cannot be undone")


class FactForm(FlaskForm):
    text = StringField("Fact", validators=[DataRequired(), Length(max=500)])


class ProfileForm(FlaskForm):
    dimension = StringField("Dimension", validators=[DataRequired(), Length(max=200)])
    level = SelectField("Level", choices=list(LEVELS))
    reason = StringField("Reason", validators=[Optional(), Length(max=500)])


class DimensionForm(FlaskForm):
    dimension = StringField("Dimension", validators=[DataRequired(), Length(max=200)])


class DeleteAccountForm(FlaskForm):
    password = PasswordField("Your password", validators=[DataRequired(), Length(max=200)])


def form_error(form: FlaskForm) -> str:
    """The form's errors as one sentence."""
    return "; ".join(f"{name}: {e}" for name, errs in form.errors.items()
                     for e in errs) or "invalid form"
