# The checkout scene with tracing and logs on, for sentry-python 2.x.
import os, sys, time, logging
import sentry_sdk
legacy = os.environ.get("LEGACY") == "1"
opts = dict(dsn=os.environ["DSN"], traces_sample_rate=1.0, release="shop@1.2.3", environment="test")
if legacy:
    opts["_experiments"] = {"enable_logs": True}
else:
    opts["enable_logs"] = True
sentry_sdk.init(**opts)
from sentry_sdk import logger as slog

def rate(currency):
    with sentry_sdk.start_span(op="db.query", name="SELECT rate FROM rates WHERE currency = %s") as s:
        s.set_data("db.system", "sqlite")
        time.sleep(0.02)
        slog.info("rate for {currency} looked up", currency=currency)
        return 0

def charge(amount, rate):
    with sentry_sdk.start_span(op="http.client", name="POST https://pay.example/charge?token=abc123") as s:
        s.set_data("http.request.method", "POST")
        time.sleep(0.01)
        slog.warning("charging {amount} <script>alert(1)</script> with token=s3cr3t", amount=amount)
        return amount / rate

with sentry_sdk.start_transaction(op="http.server", name="POST /checkout") as tx:
    sentry_sdk.set_tag("currency", "EUR")
    try:
        charge(12.5, rate("EUR"))
    except ZeroDivisionError:
        slog.error("checkout failed for order {order}", order="A-17")
        sentry_sdk.capture_exception()
for i in range(3):
    with sentry_sdk.start_transaction(op="task", name="send-receipts"):
        with sentry_sdk.start_span(op="smtp.send", name="send receipt %d" % i):
            time.sleep(0.002)
sentry_sdk.flush(5)
