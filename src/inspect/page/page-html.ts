/**
 * The inspector's page: one HTML document whose script and style are served by the same
 * server (`/app.js`, `/app.css`), nothing from elsewhere. The per-start token is embedded for
 * the page's own action requests (which send it in a header).
 */
export function pageHtml(token: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta name="agentstate-token" content="${escapeAttribute(token)}">`,
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

function escapeAttribute(text: string): string {
  return text.replace(/[&"<>]/g, (c) => `&#${c.charCodeAt(0)};`);
}
