"""axe-core (the npm package, installed by the project's set-up) run inside a page."""

from pathlib import Path

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

RUN = """async () => {
  const result = await axe.run(document, {resultTypes: ["violations"]});
  return result.violations
    .filter(v => v.impact === "critical" || v.impact === "serious")
    .map(v => {
      const where = v.nodes.slice(0, 3).map(n => n.target.join(" ")).join("; ");
      return `${v.impact} ${v.id}: ${v.help} at ${where}`;
    });
}"""


def serious_violations(page) -> list[str]:
    """The critical and serious accessibility violations axe-core finds on ``page``."""
    if not AXE.exists():
        raise RuntimeError(f"{AXE} is missing: run `make test` (it runs npm ci)")
    page.evaluate(AXE.read_text())  # evaluated by the browser's debugger: no CSP applies
    return page.evaluate(RUN)
