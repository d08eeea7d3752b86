// Proposed-write card, linked from every write tool that no card of its own shows: the
// write waiting for the human (proposed.js), or a compact note once it was written.
import { errorBox, h, startCard } from "../shared/card.js";
import { filesList, KEY, proposed } from "./proposed.js";

function render(card, data, input, result) {
  const pending = result?._meta?.[KEY];
  if (pending) return card.show(proposed(card, pending, input));
  if (result?.isError || !data) return card.show(h("div", { "data-ready": "" }, errorBox(result)));
  const sha = data.commit_sha;
  card.show(
    h(
      "article",
      { class: "written", "data-ready": "" },
      h("h1", {}, "Written"),
      sha ? h("p", { class: "meta" }, "Commit ", h("code", {}, sha), data.branch ? [" on ", data.branch] : null) : null,
      Array.isArray(data.files) ? filesList("files", data.files.map((f) => ({ ...f, change: f.status ?? "" }))) : null,
    ),
  );
}

startCard("proposed-write", render, { acceptErrors: true });
