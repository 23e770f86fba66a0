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
    '</head>',
    '<body>',
    '<header><h1>agentstate inspector</h1><div id="controls"></div></header>',
    '<main><section id="sessions"></section><section id="detail"></section></main>',
    '<script src="/app.js"></script>',
    '</body>',
    '</html>',
  ].join('\n');
}
