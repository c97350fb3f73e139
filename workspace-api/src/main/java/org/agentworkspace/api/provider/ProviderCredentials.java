package org.agentworkspace.api.provider;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import org.agentworkspace.api.WorkspaceException;

/**
 * The credential and endpoint one run of one provider gets. Both parts are optional: without an API key the CLI uses
 * its own login (if any) in the child's HOME; without a base URL it talks to its vendor's default endpoint. Each
 * provider maps these to its own variables only (docs/providers.md), so a key given for one provider never reaches
 * another provider's process. {@link #toString()} never shows the key.
 *
 * @param apiKey the API key, or {@code null}
 * @param baseUrl the API endpoint as the CLI expects it (e.g. {@code https://api.openai.com/v1} for codex, without
 *     {@code /v1} for claude; see docs/providers.md), or {@code null}
 */
public record ProviderCredentials(String apiKey, String baseUrl) {

    public ProviderCredentials {
        if (apiKey != null) {
            if (apiKey.isBlank()) {
                throw WorkspaceException.Validation.of("apiKey must not be blank");
            }
            if (apiKey.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
                throw WorkspaceException.Validation.of("apiKey must not contain control characters");
            }
        }
        if (baseUrl != null) {
            validateBaseUrl(baseUrl);
        }
    }

    /** No key and no endpoint: the CLI's own login and default endpoint. */
    public static ProviderCredentials none() {
        return new ProviderCredentials(null, null);
    }

    /** An API key for the vendor's default endpoint. */
    public static ProviderCredentials apiKey(String apiKey) {
        return new ProviderCredentials(apiKey, null);
    }

    public boolean hasApiKey() {
        return apiKey != null;
    }

    public boolean hasBaseUrl() {
        return baseUrl != null;
    }

    private static void validateBaseUrl(String baseUrl) {
        if (baseUrl.length() > 2048 || baseUrl.chars().anyMatch(c -> c <= 0x20 || c == 0x7f || c == '"' || c == '\''
                || c == '\\' || c == '`' || c == '$')) {
            throw WorkspaceException.Validation.of("baseUrl must be an http(s) URL without spaces or quotes");
        }
        try {
            URI uri = new URI(baseUrl);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null || uri.getQuery() != null
                    || uri.getFragment() != null) {
                throw WorkspaceException.Validation.of("baseUrl must be an absolute http(s) URL without query");
            }
        } catch (URISyntaxException e) {
            throw WorkspaceException.Validation.of("baseUrl must be an absolute http(s) URL");
        }
    }

    @Override
    public String toString() {
        return "ProviderCredentials[apiKey=" + (apiKey == null ? "none" : "***") + ", baseUrl=" + baseUrl + "]";
    }
}
