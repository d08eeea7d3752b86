// The proposed-write card (the change card shows it too, while a commit waits for
// approval): a gated write waiting for the human. It shows the facts the
// approval page shows (the server builds both from one function), and Approve / Deny call
// the app-only tool with the card's nonce. After an approval the card runs the same call
// again, with the same arguments: the server lets exactly that write through once, and
// refuses it if the state it was bound to (a branch head) moved. A host this server does
// not trust gets the approval page's link instead of the buttons.
import { h, plural } from "../shared/card.js";

/** Where a gated write's result carries its card (`_meta`, which the model does not read). */
export const KEY = "github-mcp/proposed-write";
const HIDDEN = /(⟨U\+[0-9A-F]{4,6}⟩)/;
// The card's own rules, added once to whichever card shows it (the change card too).
const STYLE = `
.proposed table { border-collapse: collapse; width: 100%; }
.proposed th, .proposed td { padding: 3px 8px 3px 0; text-align: left; vertical-align: top; }
.proposed th { color: var(--color-text-secondary); font-weight: 600; white-space: nowrap; width: 1%; }
.proposed td code, .proposed td span { overflow-wrap: anywhere; }
.proposed pre.full { margin: 0; max-height: 200px; }
.proposed pre.diff .line { display: block; }
.proposed pre.diff .hunk { color: var(--color-text-secondary); }
.proposed mark.hidden-char { background: none; color: var(--color-text-warning); font-weight: 700; border: 1px solid currentColor; border-radius: 3px; padding: 0 2px; }
.proposed #warnings { border: 1px solid currentColor; border-radius: 6px; padding: 6px 10px; margin-bottom: 8px; }
.proposed #warnings ul { margin: 4px 0 0; padding-left: 18px; }
.proposed .status.bad { color: var(--color-text-danger); }
.proposed .status.ok { color: var(--color-text-success); }
`;

function ensureStyle() {
  if (document.getElementById("proposed-write-style")) return;
  const style = document.createElement("style");
  style.id = "proposed-write-style";
  style.textContent = STYLE;
  document.head.append(style);
}

/** Text with each made-visible hidden character marked, so it stands out. */
function shown(text) {
  return String(text ?? "")
    .split(HIDDEN)
    .map((part, i) => (i % 2 ? h("mark", { class: "hidden-char" }, part) : part));
}

function value(text) {
  const long = text.includes("\n") || text.length > 80;
  return long ? h("pre", { class: "full" }, shown(text)) : h("span", {}, shown(text));
}

function rowsTable(id, rows) {
  return h(
    "table",
    { id },
    rows.map(([label, text]) => h("tr", {}, h("th", {}, shown(label)), h("td", {}, value(text)))),
  );
}

function counts(added, removed) {
  if (added == null && removed == null) return null;
  return [" ", h("span", { class: "add" }, `+${added ?? 0}`), " ", h("span", { class: "del" }, `−${removed ?? 0}`)];
}

function diff(path, text) {
  const lines = text.split("\n").map((line) => {
    const kind = line.startsWith("@@")
      ? "hunk"
      : line.startsWith("+") && !line.startsWith("+++")
        ? "add"
        : line.startsWith("-") && !line.startsWith("---")
          ? "del"
          : "ctx";
    return h("span", { class: `line ${kind}` }, shown(line));
  });
  return h("pre", { class: "diff", "data-path": path }, lines);
}

export function filesList(id, files) {
  return h(
    "ul",
    { id, class: "rows" },
    files.map((f) =>
      h(
        "li",
        { "data-path": f.path },
        `${f.change ?? f.status} `,
        h("code", {}, shown(f.path)),
        counts(f.added, f.removed),
        f.note ? [" (", shown(f.note), ")"] : null,
      ),
    ),
  );
}

function stateSection(state) {
  if (!state) return null;
  const facts = h(
    "table",
    { id: "state" },
    state.facts.map(([name, text]) =>
      h("tr", {}, h("th", {}, shown(name)), h("td", {}, h("code", { "data-fact": name }, shown(text)))),
    ),
    state.texts.map(([label, text]) => h("tr", {}, h("th", {}, shown(label)), h("td", {}, value(text)))),
  );
  const commits = state.since
    ? [
        h("h2", {}, `${plural(state.commits_total, "commit")} since `, shown(state.since)),
        h(
          "ol",
          { id: "commits" },
          state.commits.map((c) => h("li", {}, h("code", {}, c.sha), h("pre", { class: "full" }, shown(c.message)))),
        ),
      ]
    : null;
  const files = state.files.length
    ? [
        h("h2", {}, state.since ? "Files at that head" : "Files in this commit"),
        filesList("head-files", state.files),
        state.files.filter((f) => f.diff).map((f) => diff(f.path, f.diff)),
      ]
    : null;
  return [
    h("h2", {}, "Approving exactly this state"),
    h("p", { class: "muted" }, "The write is refused if this has changed when it runs."),
    facts,
    commits,
    files,
  ];
}

function factsView(facts) {
  if (facts.session_writes) return rowsTable("write", facts.rows);
  return [
    facts.warnings.length
      ? h(
          "div",
          { id: "warnings", class: "warn", role: "alert" },
          h("strong", {}, "Look-alike names"),
          h("ul", {}, facts.warnings.map((w) => h("li", {}, shown(w)))),
        )
      : null,
    rowsTable("write", facts.rows),
    facts.files.length ? [h("h2", {}, plural(facts.files.length, "file")), filesList("files", facts.files)] : null,
    facts.files.filter((f) => f.diff).map((f) => diff(f.path, f.diff)),
    stateSection(facts.state),
  ];
}

function decisionButtons(card, pending, input, status) {
  const buttons = h("div", { class: "actions" });
  const approve = h("button", { id: "approve", class: "primary" }, "Approve this write once");
  const deny = h("button", { id: "deny" }, "Deny");
  const decide = async (choice) => {
    approve.disabled = deny.disabled = true;
    report(status, "busy", choice === "approve" ? "Approving…" : "Denying…");
    const answer = await card.callTool(pending.decide_tool, {
      request: pending.request,
      nonce: pending.nonce,
      choice,
    });
    if (answer.isError) return report(status, "refused", refusal(answer));
    if (choice === "deny") {
      report(status, "denied", "Denied: nothing was written.");
      return note(card, `The human denied ${pending.facts.tool} on the card: nothing was written.`);
    }
    report(status, "busy", "Approved. Writing exactly the approved change…");
    const written = await card.callTool(pending.facts.tool, input);
    if (written.isError) return report(status, "refused", `Refused: ${refusal(written)}`);
    const sha = written.structuredContent?.commit_sha;
    report(status, "written", sha ? `Written: commit ${sha}.` : "Written.");
    note(card, `The human approved ${pending.facts.tool} on the card and it was written${sha ? ` (commit ${sha})` : ""}. Do not call it again.`);
  };
  approve.addEventListener("click", () => decide("approve").catch((e) => report(status, "refused", String(e))));
  deny.addEventListener("click", () => decide("deny").catch((e) => report(status, "refused", String(e))));
  buttons.append(approve, deny);
  return buttons;
}

function pageLink(card, pending) {
  return [
    h(
      "p",
      { class: "muted", id: "page-note" },
      "This client cannot approve here: the approval page decides. Open it, check the same facts, and approve or deny there.",
    ),
    h(
      "div",
      { class: "actions" },
      h("button", { id: "open-page", class: "primary", onclick: () => card.openLink(pending.approval_url) }, "Open the approval page"),
    ),
  ];
}

function refusal(result) {
  const error = result.structuredContent?.error;
  return error ? `${error.code}: ${error.message}` : "the server refused";
}

function report(status, outcome, text) {
  status.dataset.outcome = outcome;
  status.className = `status ${outcome === "refused" ? "bad" : outcome === "written" ? "ok" : ""}`;
  status.textContent = text;
}

function note(card, text) {
  card.app.updateModelContext({ content: [{ type: "text", text }] }).catch(() => {});
}

/** The card of a write waiting for the human; `input` is the write's own arguments. */
export function proposed(card, pending, input) {
  ensureStyle();
  const facts = pending.facts;
  const status = h("p", { id: "status", class: "status", role: "status" });
  const where = facts.repository ? [" on ", shown(facts.repository), facts.branch ? [" @ ", shown(facts.branch)] : null] : null;
  return h(
    "article",
    { class: "proposed", "data-mode": pending.mode, "data-ready": "" },
    h("h1", {}, "Approve this write?"),
    h("p", { class: "meta" }, h("code", {}, shown(facts.tool ?? "")), where, ` · expires in ${Math.ceil(pending.expires_in_s / 60)} min`),
    factsView(facts),
    pending.mode === "card" ? decisionButtons(card, pending, input, status) : pageLink(card, pending),
    status,
  );
}

