import type { DropState } from "../_components/format";
import type { DropDetail } from "@/lib/schemas";

/**
 * Why the drop page cannot show a drop's live page in its preview frame, in words for its owner;
 * null when the frame shows it. A frame that would stay blank (or show an error page) is not
 * drawn: the owner reads the reason instead.
 */
export function previewBlocker(
  drop: Pick<DropDetail, "access" | "files" | "files_truncated" | "redirect_rules" | "rules" | "disabled">,
  state: DropState,
  ownerSuspended = false,
): string | null {
  // The frame would show the 451 page: say why instead.
  if (drop.disabled)
    return `No preview: an operator has disabled this drop (${drop.disabled.reason}), so it answers 451 to every visitor. You can still delete it, or appeal with the report form.`;
  if (ownerSuspended)
    return "No preview: this account is suspended, so its drops answer 451 to every visitor. Appeal with the report form.";
  if (state === "expired")
    return "No preview: this drop has expired and is offline. Visitors get 410 Gone until it is removed.";
  if (drop.access === "password")
    return "No preview: this drop is password-protected. Open it in a new tab and enter its password to see it.";
  const framing = drop.rules.headers.some((block) =>
    block.headers.some(
      ({ name, value }) =>
        name.toLowerCase() === "x-frame-options" ||
        (name.toLowerCase() === "content-security-policy" && /frame-ancestors/i.test(value)),
    ),
  );
  if (framing)
    return "No preview: this drop's _headers file forbids showing it in a frame (X-Frame-Options or frame-ancestors). Open it in a new tab.";
  if (!drop.files_truncated && drop.redirect_rules === 0 && !drop.files.some((f) => f.path === "index.html"))
    return "No preview: this drop has no index.html, so its address answers 404 Not Found. Open one of its files from the list.";
  return null;
}
