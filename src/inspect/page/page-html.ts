/** The page's icon, inline (no request, no 404): a state box with a check mark. */
const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Crect x='1' y='1' width='14' height='14' rx='3' fill='%231d4ed8'/%3E%3Cpath d='M4 8.5l2.5 2.5L12 5' stroke='white' stroke-width='2' fill='none'/%3E%3C/svg%3E";

/**
 * The inspector's page: one HTML document whose script and style are served by the same
 * server (`/app.js`, `/app.css`), nothing from elsewhere. It holds no secret: its requests
 * carry the cookie the token was traded for.
 */
export function pageHtml(): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>agentstate inspector</title>',
    '<link rel="stylesheet" href="/app.css">',
    `<link rel="icon" href="${FAVICON}">`,
    '</head>',
    '<body>',
    '<header><h1>agentstate inspector</h1><div id="controls"></div></header>',
    '<main><section id="sessions"></section><section id="detail"></section></main>',
    '<script src="/app.js"></script>',
    '</body>',
    '</html>',
  ].join('\n');
}
