"""Email over SMTP with STARTTLS (stdlib ``smtplib``/``email``): multipart text + HTML.

No size limit applies to a digest-sized message; the subject is kept under RFC 5322's
recommended 78 characters per line by the header encoder, and the title is shortened at a
word boundary past 150 characters.
"""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid

from devdigest.config import NotifyTarget
from devdigest.errors import NotifyError
from devdigest.notify.base import SendContext
from devdigest.notify.body import Style, render_body
from devdigest.notify.digest import Digest
from devdigest.notify.text import clip, escape_html, safe_url

SUBJECT_CHARS = 150
TEXT_STYLE = Style(str, link="{text}: {url}")
_NO_LIMIT = 1_000_000


def render_html(digest: Digest) -> str:
    e = escape_html
    parts = [f"<h2>{e(digest.title)}</h2>", f"<p>{e(digest.window)}</p>"]
    if digest.counts:
        cells = "".join(f"<td>{e(label)}<br><b>{value}</b></td>" for label, value in digest.counts)
        parts.append(f"<table><tr>{cells}</tr></table>")
    for section in digest.sections:
        items = "".join(f"<li>{_item(line.text, line.url)}</li>" for line in section.lines)
        parts.append(f"<h3>{e(section.heading)}</h3><ul>{items}</ul>")
    link = safe_url(digest.link)
    if link:
        parts.append(f'<p><a href="{e(link)}">{e(digest.open_label)}</a></p>')
    return f'<!doctype html><html lang="{e(digest.lang)}"><body>{"".join(parts)}</body></html>'


def _item(text: str, url: str | None) -> str:
    link = safe_url(url)
    return f'<a href="{escape_html(link)}">{escape_html(text)}</a>' if link else escape_html(text)


def render(digest: Digest, target: NotifyTarget) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = clip(digest.title, SUBJECT_CHARS)
    message["From"] = target.sender
    message["To"] = ", ".join(target.recipients)
    message["Date"] = formatdate(localtime=False)
    message["Message-ID"] = make_msgid(domain="devdigest")
    message.set_content(render_body(digest, TEXT_STYLE, _NO_LIMIT))
    message.add_alternative(render_html(digest), subtype="html")
    return message


def send(target: NotifyTarget, digest: Digest, ctx: SendContext) -> None:
    password = ctx.secret(target, "password_env", required=bool(target.smtp_user))
    context = ssl.create_default_context(cafile=target.smtp_cafile)
    try:
        with smtplib.SMTP(target.smtp_host or "", target.smtp_port, timeout=30) as smtp:
            if target.starttls:
                smtp.starttls(context=context)
            if target.smtp_user:
                smtp.login(target.smtp_user, password or "")
            smtp.send_message(render(digest, target))
    except (smtplib.SMTPException, OSError) as exc:
        detail = " ".join(str(exc).split())[:200]
        raise NotifyError(
            f"{target.name}: SMTP delivery failed ({exc.__class__.__name__}: {detail}); "
            "check smtp_host, smtp_port, the account and the password variable"
        ) from exc
