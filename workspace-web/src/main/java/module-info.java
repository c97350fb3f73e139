/**
 * The browser UI: the bundled assets (built from {@code src/} by Vite, see docs/web-ui.md) as resources under
 * {@code META-INF/aw-web/}, and {@link org.agentworkspace.web.WebAssets} to read them. No dependencies.
 */
module org.agentworkspace.web {
    exports org.agentworkspace.web;
}
