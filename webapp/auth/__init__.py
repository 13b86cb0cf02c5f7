"""Log in, register, log out (everywhere)."""
