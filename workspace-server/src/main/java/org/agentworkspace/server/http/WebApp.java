package org.agentworkspace.server.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.GZIPOutputStream;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import org.agentworkspace.web.WebAssets;

/**
 * Serves the browser UI (module {@code workspace-web}) at {@code /}: its files by path, and {@code index.html} for
 * any other GET that is not an API path and does not name a file (the app's deep links, such as
 * {@code /projects/p/sessions/s}). Hashed build output under {@code /assets/} is cached for good; {@code index.html},
 * the service worker and the manifest are never cached, so a new build is picked up at the next load. Every answer
 * carries a strict content security policy: scripts and styles only from this origin, no inline script, no framing.
 * Reached from the routing's final catch-all, so the route table and its OpenAPI comparison are not involved.
 */
public final class WebApp {
    /** The page's policy: nothing inline, nothing from elsewhere; {@code connect-src 'self'} covers the same-origin /ws. */
    public static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
            + "font-src 'self'; connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; "
            + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
    static final String IMMUTABLE = "public, max-age=31536000, immutable";

    private record Asset(byte[] body, byte[] gzip, String type, String etag, String cacheControl) {
    }

    private final Map<String, Asset> assets;

    private WebApp(Map<String, Asset> assets) {
        this.assets = assets;
    }

    /** The packaged UI (empty when the build skipped it). */
    public static WebApp load() {
        Map<String, Asset> out = new ConcurrentHashMap<>();
        WebAssets.load().forEach((path, body) -> out.put(path, asset(path, body)));
        return new WebApp(Map.copyOf(out));
    }

    /** Whether a UI was packaged. */
    public boolean present() {
        return assets.containsKey("index.html");
    }

    /**
     * Answers a GET or HEAD for a UI file or a deep link; false (nothing written) for anything else: other methods,
     * API and socket paths, a missing file under {@code /assets/} or a missing name with an extension.
     */
    public boolean serve(ServerRequest req, ServerResponse res) {
        Method method = req.prologue().method();
        if (!(method == Method.GET || method == Method.HEAD) || !present()) {
            return false;
        }
        String path = req.path().path();
        if (path.startsWith("/api/") || path.equals("/api") || path.equals("/ws") || path.equals("/shell")
                || path.equals("/health")) {
            return false;
        }
        String rel = path.equals("/") ? "index.html" : path.substring(1);
        Asset found = assets.get(rel);
        if (found == null) {
            String last = rel.substring(rel.lastIndexOf('/') + 1);
            if (rel.startsWith("assets/") || last.contains(".")) {
                return false;
            }
            found = assets.get("index.html");
        }
        Asset asset = found;
        res.header(HeaderNames.CONTENT_TYPE, asset.type());
        res.header(HeaderNames.CACHE_CONTROL, asset.cacheControl());
        res.header(HeaderNames.create("Content-Security-Policy"), CSP);
        res.header(HeaderNames.ETAG, asset.etag());
        boolean gzip = asset.gzip() != null && req.headers().first(HeaderNames.ACCEPT_ENCODING)
                .map(v -> v.toLowerCase(Locale.ROOT).contains("gzip")).orElse(false);
        if (asset.gzip() != null) {
            res.header(HeaderNames.VARY, "Accept-Encoding");
        }
        boolean notModified = !asset.cacheControl().equals("no-store") && req.headers().first(HeaderNames.IF_NONE_MATCH)
                .map(v -> v.equals(asset.etag())).orElse(false);
        if (notModified) {
            res.status(Status.NOT_MODIFIED_304);
            res.send();
            return true;
        }
        byte[] body = gzip ? asset.gzip() : asset.body();
        if (gzip) {
            res.header(HeaderNames.CONTENT_ENCODING, "gzip");
        }
        if (method == Method.HEAD) {
            res.header(HeaderNames.CONTENT_LENGTH, String.valueOf(body.length));
            res.send();
        } else {
            res.send(body);
        }
        return true;
    }

    private static Asset asset(String path, byte[] body) {
        String type = type(path);
        String cache = path.startsWith("assets/") ? IMMUTABLE : path.equals("index.html") || path.equals("sw.js")
                ? "no-store" : "no-cache";
        boolean text = type.startsWith("text/") || type.startsWith("application/javascript")
                || type.startsWith("application/json") || type.startsWith("application/manifest+json")
                || type.startsWith("image/svg");
        return new Asset(body, text && body.length > 1024 ? gzip(body) : null, type, etag(body), cache);
    }

    static String type(String path) {
        String ext = path.substring(path.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        return switch (ext) {
            case "html" -> "text/html; charset=utf-8";
            case "js", "mjs" -> "application/javascript; charset=utf-8";
            case "css" -> "text/css; charset=utf-8";
            case "json" -> "application/json";
            case "webmanifest" -> "application/manifest+json";
            case "svg" -> "image/svg+xml";
            case "png" -> "image/png";
            case "ico" -> "image/x-icon";
            case "woff2" -> "font/woff2";
            case "txt" -> "text/plain; charset=utf-8";
            default -> "application/octet-stream";
        };
    }

    private static String etag(byte[] body) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(body);
            return "\"" + HexFormat.of().formatHex(d, 0, 12) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] gzip(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(body.length / 3 + 64);
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
