"""The director's blueprint (/director) and its guard, which every resource module imports.

Alone in its module so the resource modules add their routes to it and the package registers
it, with no module importing the package that imports it.
"""

from __future__ import annotations

from flask import Blueprint

from kiosk.staff_web import staff_required

bp = Blueprint("director", __name__, url_prefix="/director")
director_only = staff_required("director")
