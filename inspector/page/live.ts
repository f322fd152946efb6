/** The page's one aria-live (polite) region: views announce live changes through it. */
let sink: ((text: string) => void) | undefined;
export const setAnnouncer = (fn: (text: string) => void): void => {
  sink = fn;
};
export const announce = (text: string): void => sink?.(text);
