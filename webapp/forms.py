"""FlaskForms: every state change is a POST carrying a CSRF token."""

from __future__ import annotations

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

from memoryos_core.importers import FORMATS


class EmptyForm(FlaskForm):
    """Buttons: only the CSRF token."""


class LoginForm(FlaskForm):
    username = StringField("Username", validators=[DataRequired(), Length(max=64)])
    password = PasswordField("Password", validators=[DataRequired(), Length(max=200)])


COMMON_PASSWORDS = frozenset("""
password passw0rd password1 password12 password123 p@ssword p@ssw0rd qwertyuiop qwerty123
qwertyui 1q2w3e4r 1q2w3e4r5t 1qaz2wsx zaq12wsx iloveyou sunshine princess football baseball
welcome welcome1 monkey123 dragon123 letmein1 trustno1 abc12345 abcd1234 abcdefgh admin123
administrator superman batman123 starwars whatever computer internet changeme secret123
master123 shadow123 michael1 jennifer charlie1 freedom1 asdfghjk asdfasdf zxcvbnm1
""".split())


def strong_password(form: FlaskForm, field: PasswordField) -> None:
    """Refuse passwords that are common, all digits, one repeated pattern or the username."""
    value = (field.data or "").strip().lower()
    username = (getattr(form, "username", None) and form.username.data or "").strip().lower()
    if (value in COMMON_PASSWORDS or value.isdigit() or len(set(value)) < 4
            or (len(username) >= 4 and username in value)):
        raise ValidationError("This password is too easy to guess: use a few unrelated words.")


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
    select = StringField("LoCoMo: sample id (for a file with many)", validators=[
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
