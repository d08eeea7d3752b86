// Change summary card, after a write that committed files (commit_files,
// apply_patch_and_commit, apply_text_update_and_commit, update_file_sections_and_commit,
// delete_file, move_file, update_files_and_open_pr): the commit, its files with +/- counts,
// whether the server read the branch back and found what it wrote, and links.
import { errorBox, h, payload, plural, startCard } from "../shared/card.js";
import { KEY, proposed } from "../proposed-write/proposed.js";
import { countLines, renderPatch, visible } from "../shared/diff.js";

/** The patch of each file, cut out of the commit's combined diff by its `diff --git` header. */
function patchesByFile(diff) {
  const out = new Map();
  let path = null;
  let lines = [];
  const flush = () => path && out.set(path, lines.join("\n"));
  for (const line of String(diff || "").split("\n")) {
    const head = /^diff --git a\/(.+) b\/(.+)$/.exec(line);
    if (head) {
      flush();
      path = head[2];
      lines = [];
    } else if (path) {
      lines.push(line);
    }
  }
  flush();
  return out;
}

function link(card, url, text, id) {
  return h("a", { href: url, id, onclick: (e) => (e.preventDefault(), card.openLink(url)) }, text);
}

function verification(v, status) {
  if (status === "no_change") return h("p", { class: "muted", id: "verification" }, "Nothing written: the branch already held this content.");
  if (!v) return h("p", { class: "muted", id: "verification" }, "Not verified.");
  return v.verified
    ? h("p", { class: "ok", id: "verification", "data-verified": "true" }, `Verified: the branch head is this commit and ${plural(v.files_checked ?? 0, "file")} read back as written.`)
    : h("p", { class: "bad", id: "verification", "data-verified": "false" }, "Not verified: the branch does not show what was written. Check it before going on.");
}

/** Each file's patch and counts: from the write's own diff when it returned one, else
 * from comparing the commit with its parent (`compared`, read through the host). */
function fileStats(commit, compared) {
  const patches = patchesByFile(commit.diff);
  return (commit.files || []).map((f) => {
    const other = compared?.get(f.path);
    if (!patches.has(f.path) && other) {
      return { ...f, patch: other.patch, added: other.additions ?? 0, removed: other.deletions ?? 0 };
    }
    return { ...f, patch: patches.get(f.path), ...countLines(patches.get(f.path)) };
  });
}

function draw(card, data, input, repoUrl, compared, ready) {
  const commit = data.commit || data; // update_files_and_open_pr nests its commit
  const pr = data.pr || data.pull_request || null;
  const sha = String(commit.commit_sha || "");
  const files = fileStats(commit, compared);
  const total = files.reduce((t, f) => ({ add: t.add + f.added, del: t.del + f.removed }), { add: 0, del: 0 });
  const name = input.full_name || "";
  card.show(
    h(
      "article",
      { class: "change", "data-ready": ready ? "" : null },
      h(
        "header",
        {},
        h("h1", {}, commit.status === "no_change" ? "No change" : `Committed to ${commit.branch || input.branch || ""}`),
        h(
          "p",
          { class: "meta" },
          name,
          " · ",
          h("span", { class: "mono", id: "sha" }, sha.slice(0, 12)),
          commit.parent_sha ? h("span", {}, " on ", h("span", { class: "mono" }, String(commit.parent_sha).slice(0, 7))) : null,
          commit.created_branch ? " · new branch" : null,
        ),
        input.message ? h("pre", { class: "message", id: "message" }, visible(input.message)) : null,
        h("p", { class: "meta", "data-totals": "" }, `${plural(files.length, "file")} `, h("span", { class: "add" }, `+${total.add}`), " ", h("span", { class: "del" }, `−${total.del}`)),
        verification(commit.verification, commit.status),
      ),
      h(
        "div",
        { class: "actions" },
        repoUrl && sha ? link(card, `${repoUrl}/commit/${sha}`, "Open commit", "open-commit") : null,
        repoUrl && commit.branch ? link(card, `${repoUrl}/tree/${commit.branch.split("/").map(encodeURIComponent).join("/")}`, "Open branch", "open-branch") : null,
        pr && pr.url ? link(card, pr.url, `Open pull request #${pr.number ?? ""}`, "open-pr") : null,
      ),
      (commit.rebased_onto || []).length ? h("p", { class: "warn" }, `Rebased onto ${commit.rebased_onto.map((s) => s.slice(0, 7)).join(", ")} (the branch moved meanwhile).`) : null,
      h(
        "section",
        { id: "files" },
        h("h2", {}, "Files"),
        files.map((f) =>
          h(
            "details",
            { class: "file", "data-path": f.path },
            h("summary", {}, h("span", { class: "mono path" }, visible(f.path)), " ", h("span", { class: "meta" }, f.status), " ", h("span", { class: "add" }, `+${f.added}`), " ", h("span", { class: "del" }, `−${f.removed}`), f.ok === false ? h("span", { class: "bad" }, " · did not read back as written") : null),
            f.patch ? renderPatch(f.patch) : h("p", { class: "muted" }, "No diff for this file."),
          ),
        ),
      ),
      commit.diff_truncated ? h("p", { class: "warn" }, "The diff was cut short; the counts cover what is shown.") : null,
    ),
  );
}

startCard("change-card", async (card, data, input, result) => {
  // a commit waiting for the human's approval: the proposed-write card, until it is written
  const pending = result?._meta?.[KEY];
  if (pending) return card.show(proposed(card, pending, input));
  if (result?.isError || !data) return card.show(h("div", { "data-ready": "" }, errorBox(result)));
  const commit = data.commit || data;
  draw(card, data, input, null, null, !input.full_name);
  if (!input.full_name) return;
  let repoUrl = null;
  let compared = null;
  try {
    repoUrl = payload(await card.callTool("get_repository", { full_name: input.full_name })).html_url || null;
    if (!commit.diff && commit.parent_sha && commit.status !== "no_change") {
      const args = { full_name: input.full_name, base: commit.parent_sha, head: commit.commit_sha, include_patch: true };
      const files = payload(await card.callTool("compare_refs", args)).files || [];
      compared = new Map(files.map((f) => [f.path, f]));
    }
  } catch {
    // without them the card still shows the commit and its files, without counts or links
  }
  draw(card, data, input, repoUrl, compared, true);
}, { acceptErrors: true });
