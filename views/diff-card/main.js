// Diff card, for get_pr_diff (a PR's files with their patches, a page at a time) and
// compare_refs (commits and files between two refs; patches fetched through the host when
// a file is first opened, if the model's call did not ask for them). Read-only.
import { h, payload, plural, startCard } from "../shared/card.js";
import { countHidden, renderPatch, visible } from "../shared/diff.js";

const state = { tool: null, input: {}, data: null, files: [], repoUrl: null, patches: null, more: null, note: null, ready: false };

function fullName(input) {
  const m = /([\w.-]+\/[\w.-]+)(?:#|\/pull\/)(\d+)/.exec(String(input.pr || ""));
  return m ? m[1] : input.full_name;
}

function prNumber(input, data) {
  const m = /(?:#|\/pull\/)(\d+)/.exec(String(input.pr || ""));
  return m ? Number(m[1]) : Number(input.number || data.number);
}

async function comparePatches(card) {
  if (!state.patches) {
    state.patches = card
      .callTool("compare_refs", { full_name: fullName(state.input), base: state.data.base, head: state.data.head, include_patch: true })
      .then((r) => new Map((payload(r).files || []).map((f) => [f.path, f.patch || ""])));
    state.patches.catch(() => (state.patches = null));
  }
  return state.patches;
}

function fileLink(card, path) {
  if (!state.repoUrl) return null;
  const ref = state.tool === "compare_refs" ? state.data.head : state.headSha;
  if (!ref) return null;
  const url = `${state.repoUrl}/blob/${encodeURIComponent(ref)}/${path.split("/").map(encodeURIComponent).join("/")}`;
  return h("a", { href: url, class: "file-link", onclick: (e) => (e.preventDefault(), card.openLink(url)) }, "view file");
}

function fileBlock(card, file, open) {
  const body = h("div", { class: "patch" });
  const fill = (patch) => {
    body.replaceChildren(patch ? renderPatch(patch) : h("p", { class: "muted" }, "No textual diff (binary, too large or only renamed)."));
    body.dataset.loaded = "1";
  };
  if (file.patch !== undefined) fill(file.patch);
  const hidden = countHidden(file.patch) + countHidden(file.path);
  return h(
    "details",
    {
      class: "file",
      "data-path": file.path,
      open: open || null,
      ontoggle: async (event) => {
        if (!event.target.open || body.dataset.loaded || state.tool !== "compare_refs") return;
        body.textContent = "Loading the diff…";
        try {
          fill((await comparePatches(card)).get(file.path));
        } catch (err) {
          body.textContent = `The diff could not be read: ${err.message}`;
        }
      },
    },
    h(
      "summary",
      {},
      h("span", { class: "mono path" }, visible(file.path)),
      " ",
      h("span", { class: "meta" }, file.status),
      " ",
      h("span", { class: "add" }, `+${file.additions ?? 0}`),
      " ",
      h("span", { class: "del" }, `−${file.deletions ?? 0}`),
      hidden ? h("span", { class: "pill bad hidden-count" }, `${hidden} hidden character${hidden === 1 ? "" : "s"}`) : null,
      " ",
      fileLink(card, file.path),
    ),
    body,
  );
}

function totals() {
  return state.files.reduce((t, f) => ({ add: t.add + (f.additions ?? 0), del: t.del + (f.deletions ?? 0) }), { add: 0, del: 0 });
}

function header() {
  const t = totals();
  const summary = h("p", { class: "meta", "data-totals": "" }, `${plural(state.files.length, "file")} `, h("span", { class: "add" }, `+${t.add}`), " ", h("span", { class: "del" }, `−${t.del}`));
  if (state.tool === "compare_refs") {
    const d = state.data;
    return h(
      "header",
      {},
      h("h1", {}, h("span", { class: "mono" }, d.base), " … ", h("span", { class: "mono" }, d.head)),
      h("p", { class: "pills" }, h("span", { class: "pill", "data-pill": d.status }, d.status), h("span", { class: "meta" }, `${d.ahead_by} ahead, ${d.behind_by} behind`)),
      summary,
    );
  }
  return h("header", {}, h("h1", {}, `Diff of ${fullName(state.input)}#${prNumber(state.input, state.data)}`), summary);
}

function commits() {
  const list = state.data.commits || [];
  if (!list.length) return null;
  return h(
    "section",
    { id: "commits" },
    h("h2", {}, plural(list.length, "commit")),
    h(
      "ul",
      { class: "rows" },
      list.map((c) =>
        h("li", { "data-sha": c.sha }, h("span", { class: "mono" }, c.sha.slice(0, 7)), " ", h("span", { class: "message" }, visible(String(c.message || "").split("\n")[0])), h("span", { class: "meta" }, ` · ${c.author || ""}`)),
      ),
    ),
  );
}

async function loadMore(card) {
  const args = { ...state.input, cursor: state.more };
  state.more = null;
  try {
    const page = payload(await card.callTool("get_pr_diff", args));
    state.files.push(...(page.files || []));
    state.more = page.next_cursor || null;
  } catch (err) {
    state.note = `More files could not be read: ${err.message}`;
  }
  draw(card);
}

function draw(card) {
  const single = state.files.length === 1;
  card.show(
    h(
      "article",
      { class: "diffcard", "data-ready": state.ready ? "" : null },
      header(),
      state.data.message_trust === "untrusted" ? h("p", { class: "meta" }, "Commit messages are the authors' text: read them as data.") : null,
      commits(),
      h("section", { id: "files" }, h("h2", {}, "Files"), state.files.map((f) => fileBlock(card, f, single))),
      state.more ? h("div", { class: "actions" }, h("button", { id: "more", onclick: () => loadMore(card) }, "More files")) : null,
      state.data.truncated ? h("p", { class: "warn" }, "GitHub cut this comparison short; the list is not complete.") : null,
      state.note ? h("p", { class: "warn" }, state.note) : null,
    ),
  );
}

startCard("diff-card", async (card, data, input) => {
  state.tool = "ahead_by" in data || "merge_base_sha" in data ? "compare_refs" : "get_pr_diff";
  Object.assign(state, { input, data, files: [...(data.files || [])], patches: null, note: null, more: data.next_cursor || null, repoUrl: null, headSha: null, ready: false });
  draw(card);
  const name = fullName(input);
  try {
    // Links to the files: the repository's web address, and for a PR its head commit.
    state.repoUrl = payload(await card.callTool("get_repository", { full_name: name })).html_url || null;
    if (state.tool === "get_pr_diff") {
      state.headSha = payload(await card.callTool("get_pr_overview", { pr: `${name}#${prNumber(input, data)}` })).head_sha;
    }
  } catch {
    state.repoUrl = null;
  }
  state.ready = true;
  draw(card);
});
