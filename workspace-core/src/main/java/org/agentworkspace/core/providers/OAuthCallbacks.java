package org.agentworkspace.core.providers;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.agentworkspace.api.WorkspaceException;
import org.agentworkspace.core.network.LazyHttpClient;

/**
 * The pasted OAuth callback URL of a browser login. The token is parsed out of the URL's query or fragment: a
 * credential ({@code access_token}, {@code token}, {@code api_key}, {@code apiKey}, {@code key}) or an authorization
 * {@code code}; a URL with neither, or with {@code error}, is 400 {@code INVALID_OAUTH_CALLBACK}.
 *
 * <p>When the URL points at a loopback listener ({@code localhost}, {@code 127.0.0.1}, {@code [::1]} with an explicit
 * port), as the CLIs' login commands start one and wait on it, the request is replayed there ({@code GET} path and
 * query, nothing else) so the CLI finishes its own login and stores its own credential. Otherwise a credential found
 * in the URL is stored as the provider's key; a bare code without a waiting listener cannot be used (it needs the
 * CLI's own verifier) and is refused.
 */
public final class OAuthCallbacks {
    private static final Set<String> CREDENTIAL_PARAMS = Set.of("access_token", "token", "api_key", "apiKey", "key");
    private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "::1", "[::1]");

    private final ProviderCredentialStore credentials;
    private final LazyHttpClient http;

    OAuthCallbacks(ProviderCredentialStore credentials) {
        this.credentials = credentials;
        this.http = new LazyHttpClient(() -> HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .followRedirects(HttpClient.Redirect.NEVER).build());
    }

    /**
     * What the paste did.
     *
     * @param forwarded the CLI's waiting listener received the callback (it stores its own credential)
     * @param port      that listener's port, or {@code null}
     * @param stored    a credential from the URL was stored as the provider's key
     * @param masked    the stored key's mask, or {@code null}
     */
    public record Result(String provider, boolean forwarded, Integer port, boolean stored, String masked) {
    }

    /** As {@link #paste(String, String, Long, boolean)}, storing a token as the service-wide key. */
    public Result paste(String provider, String url, Long userId) throws InterruptedException {
        return paste(provider, url, userId, true);
    }

    /**
     * Handles a pasted callback URL.
     *
     * @param userId who pastes it
     * @param shared a token from the URL becomes the service-wide key ({@code true}; the route allows that to
     *               administrators only) or {@code userId}'s own key ({@code false}, which needs {@code userId})
     */
    public Result paste(String provider, String url, Long userId, boolean shared) throws InterruptedException {
        if (!shared && userId == null) {
            throw new IllegalArgumentException("an account's own key needs the account");
        }
        credentials.catalog().require(provider);
        if (url == null || url.isBlank() || url.length() > 8192 || url.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw invalid("url must be the callback URL from the browser's address bar");
        }
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (URISyntaxException e) {
            throw invalid("url is not a valid URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
            throw invalid("url must be an absolute http(s) URL");
        }
        Map<String, String> params = new LinkedHashMap<>();
        params(uri.getRawFragment(), params);
        params(uri.getRawQuery(), params);
        if (params.containsKey("error")) {
            throw invalid("the login was refused (" + ProviderFacts.printable(params.get("error")) + ")");
        }
        String credential = null;
        for (String p : List.of("access_token", "token", "api_key", "apiKey", "key")) {
            if (CREDENTIAL_PARAMS.contains(p) && params.get(p) != null && !params.get(p).isBlank()) {
                credential = params.get(p);
                break;
            }
        }
        String code = params.get("code");
        if (credential == null && (code == null || code.isBlank())) {
            throw invalid("the URL holds no token or authorization code; copy the whole address of the page the "
                    + "login ended on");
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        if (LOOPBACK.contains(host) && uri.getPort() > 0) {
            Integer status = forward(uri);
            if (status != null) {
                if (status >= 400) {
                    throw invalid("the CLI's login listener on port " + uri.getPort() + " refused the callback (HTTP "
                            + status + "); start the login again");
                }
                return new Result(provider, true, uri.getPort(), false, null);
            }
        }
        if (credential != null) {
            ProviderCredentialStore.Info info = shared
                    ? credentials.save(provider, credential,
                            credentials.find(provider).map(ProviderCredentialStore.Info::baseUrl).orElse(null), userId)
                    : credentials.saveOwn(userId, provider, credential, credentials.findOwn(userId, provider)
                            .map(ProviderCredentialStore.Info::baseUrl).orElse(null));
            return new Result(provider, false, null, true, info.masked());
        }
        throw invalid("the URL holds an authorization code, but no login is waiting for it"
                + (uri.getPort() > 0 ? " on port " + uri.getPort() : "") + "; start the login again and paste the "
                + "new URL while it waits");
    }

    /** Replays the callback to the loopback listener; its HTTP status, or null when nothing listens. */
    private Integer forward(URI uri) throws InterruptedException {
        String pathAndQuery = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        URI target = URI.create("http://127.0.0.1:" + uri.getPort() + pathAndQuery);
        try {
            HttpResponse<Void> res = http.get().send(HttpRequest.newBuilder(target).timeout(Duration.ofSeconds(10)).GET()
                    .build(), HttpResponse.BodyHandlers.discarding());
            return res.statusCode();
        } catch (ConnectException | HttpConnectTimeoutException e) {
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    private static void params(String raw, Map<String, String> out) {
        if (raw == null || raw.isEmpty()) {
            return;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            String k = decode(eq < 0 ? pair : pair.substring(0, eq));
            String v = eq < 0 ? "" : decode(pair.substring(eq + 1));
            if (!k.isEmpty()) {
                out.putIfAbsent(k, v);
            }
        }
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return s;
        }
    }

    private static WorkspaceException invalid(String message) {
        return new WorkspaceException.Validation(ProviderErrorCodes.INVALID_OAUTH_CALLBACK, message);
    }
}
