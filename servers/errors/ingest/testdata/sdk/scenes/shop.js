// The checkout scene with tracing and logs on, for @sentry/node.
const Sentry = require("@sentry/node");
Sentry.init({ dsn: process.env.DSN, tracesSampleRate: 1.0, enableLogs: true, release: "shop@1.2.3", environment: "test" });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function rate(currency) {
  return Sentry.startSpan({ op: "db.query", name: "SELECT rate FROM rates WHERE currency = ?", attributes: { "db.system": "sqlite" } }, async () => {
    await sleep(20);
    Sentry.logger.info(Sentry.logger.fmt`rate for ${currency} looked up`);
    return 0;
  });
}
async function charge(amount, r) {
  return Sentry.startSpan({ op: "http.client", name: "POST https://pay.example/charge?token=abc123" }, async () => {
    await sleep(10);
    Sentry.logger.warn("charging <script>alert(1)</script> with token=s3cr3t", { amount, "user.password": "hunter2" });
    if (r === 0) throw new Error("division by zero: rate is 0");
    return amount / r;
  });
}
async function main() {
  await Sentry.startSpan({ op: "http.server", name: "POST /checkout" }, async () => {
    Sentry.setTag("currency", "EUR");
    try {
      await charge(12.5, await rate("EUR"));
    } catch (e) {
      Sentry.logger.error(Sentry.logger.fmt`checkout failed for order ${"A-17"}`);
      Sentry.captureException(e);
    }
  });
  for (let i = 0; i < 3; i++) {
    await Sentry.startSpan({ op: "task", name: "send-receipts" }, async () => {
      await Sentry.startSpan({ op: "smtp.send", name: `send receipt ${i}` }, () => sleep(2));
    });
  }
  await Sentry.flush(5000);
}
main();
