"""FlaskForms: every state change is a POST carrying a CSRF token; `valid` checks one."""

from __future__ import annotations

from typing import TypeVar

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import (
    BooleanField,
    IntegerField,
    PasswordField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import (
    URL,
    DataRequired,
    EqualTo,
    Length,
    NumberRange,
    Optional,
    Regexp,
    ValidationError,
)

from memoryos_core import InvalidInput
from memoryos_core.memory.persona import LEVELS
from memoryos_core.transfer.importers import FORMATS


class EmptyForm(FlaskForm):
    """Buttons: only the CSRF token."""


class LoginForm(FlaskForm):
    username = StringField("Username", validators=[DataRequired(), Length(max=64)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=200)])


# zxcvbn scores 0-4; 2 means about a million guesses or more ("somewhat guessable"): below it
# the password is on (or a small variation of) its common-password and word lists.
PASSWORD_MIN_SCORE = 2
ZXCVBN_MAX_LENGTH = 72  # zxcvbn refuses longer input; the first 72 characters bound the rest


def password_problem(password: str, username: str = "") -> str | None:
    """Why a new password is too easy to guess (zxcvbn, offline), or None when it is fine."""
    from zxcvbn import zxcvbn

    value = password.strip().lower()
    name = username.strip().lower()
    if len(name) >= 4 and name in value:
        return "This password is too easy to guess: it contains your username."
    result = zxcvbn(password[:ZXCVBN_MAX_LENGTH], user_inputs=[name] if name else [])
    if result["score"] >= PASSWORD_MIN_SCORE:
        return None
    warning = result["feedback"].get("warning") or ""
    why = f" ({warning.rstrip('.')})" if warning else ""
    return f"This password is too easy to guess{why}: use a few unrelated words."


def strong_password(form: FlaskForm, field: PasswordField) -> None:
    """Refuse passwords on zxcvbn's common-password lists, guessable patterns or the username."""
    username = getattr(form, "username", None)
    problem = password_problem(field.data or "", (username.data or "") if username else "")
    if problem:
        raise ValidationError(problem)


class RegisterForm(FlaskForm):
    username = StringField("Username", validators=[
        DataRequired(), Length(min=2, max=64),
        Regexp(r"^[A-Za-z0-9_.-]+$", message="Use letters, digits, '.', '_' or '-'.")])
    password = PasswordField("Password", validators=[DataRequired(), Length(min=8, max=200),
                                                     strong_password])
    confirm = PasswordField("Repeat password", validators=[
        DataRequired(), EqualTo("password", message="The passwords differ.")])


class ChatForm(FlaskForm):
    message = TextAreaField("Message", validators=[DataRequired(), Length(max=20000)])


class ImportForm(FlaskForm):
    upload = FileField("File")
    text = TextAreaField("…or paste the dialogue", validators=[Optional()])
    format = SelectField("Format", choices=list(FORMATS), default="auto")
    speaker = StringField("LoCoMo: which speaker are you?", validators=[Optional(),
                                                                       Length(max=200)])
    select = StringField("LoCoMo sample id / LongMemEval question id (for a file with many)",
                         validators=[
        Optional(), Length(max=200)])


class RunImportForm(FlaskForm):
    """The second step: run a previewed upload (kept server-side under a random token)."""

    token = StringField(validators=[DataRequired(), Regexp(r"^[0-9a-f]{32}$")])
    format = SelectField(choices=list(FORMATS), default="auto")
    speaker = StringField(validators=[Optional(), Length(max=200)])
    select = StringField(validators=[Optional(), Length(max=200)])


class ClearForm(FlaskForm):
    confirm = StringField("Type CLEAR to confirm", validators=[
        DataRequired(), Regexp(r"^CLEAR$", message="Type CLEAR in capitals to confirm.")])


class DiffForm(FlaskForm):
    class Meta:
        csrf = False  # a GET form: reading only

    a = IntegerField("From version", validators=[NumberRange(min=0)], default=0)
    b = IntegerField("To version", validators=[NumberRange(min=0)], default=0)


class SettingsForm(FlaskForm):
    base_url = StringField("Base URL", validators=[
        Optional(), URL(require_tld=False, message="Enter an http(s) URL."), Length(max=500)])
    model = StringField("Model name", validators=[Optional(), Length(max=200)])
    api_key = PasswordField("API key (leave empty to keep the stored one)", validators=[
        Optional(), Length(max=500)])
    clear_key = BooleanField("Forget the stored API key")


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


def form_error(form: FlaskForm, named: bool = True, empty: str = "invalid form") -> str:
    """The form's errors as one sentence (each after its field's name when `named`)."""
    return "; ".join(f"{name}: {e}" if named else e for name, errs in form.errors.items()
                     for e in errs) or empty


F = TypeVar("F", bound=FlaskForm)


def valid(form: F, message: str | None = None, named: bool = True) -> F:
    """The posted form when it validates, else InvalidInput (`message`, or the form's errors)."""
    if not form.validate_on_submit():
        raise InvalidInput(message or form_error(form, named))
    return form
