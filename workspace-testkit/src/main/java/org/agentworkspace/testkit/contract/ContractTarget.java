package org.agentworkspace.testkit.contract;

import java.net.URI;
import java.util.Objects;

/**
 * The service the contract suite runs against, and the account it uses. The account must be able to sign in; when
 * the service still needs setup the suite registers it first (it then becomes the administrator).
 *
 * @param baseUrl the service's base address, for example {@code http://127.0.0.1:3001}
 * @param username the account's username
 * @param password the account's password (never printed)
 */
public record ContractTarget(URI baseUrl, String username, String password) {
    public ContractTarget {
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        String scheme = baseUrl.getScheme();
        if (!baseUrl.isAbsolute() || !("http".equals(scheme) || "https".equals(scheme)) || baseUrl.getHost() == null) {
            throw new IllegalArgumentException("baseUrl must be an absolute http(s) URL: " + baseUrl);
        }
        if (baseUrl.getQuery() != null || baseUrl.getFragment() != null) {
            throw new IllegalArgumentException("baseUrl must not carry a query or fragment: " + baseUrl);
        }
        String text = baseUrl.toString();
        while (text.endsWith("/")) {
            text = text.substring(0, text.length() - 1);
        }
        baseUrl = URI.create(text);
        if (username.isBlank()) {
            throw new IllegalArgumentException("username must not be blank");
        }
        if (password.isEmpty()) {
            throw new IllegalArgumentException("password must not be empty");
        }
    }

    /** A target from a URL text. */
    public static ContractTarget of(String baseUrl, String username, String password) {
        return new ContractTarget(URI.create(Objects.requireNonNull(baseUrl, "baseUrl")), username, password);
    }

    /** The absolute URI of a path (and query) on this target, for example {@code /api/auth/status}. */
    public URI resolve(String pathAndQuery) {
        if (!pathAndQuery.startsWith("/")) {
            throw new IllegalArgumentException("path must start with '/': " + pathAndQuery);
        }
        return URI.create(baseUrl + pathAndQuery);
    }

    /** The origin of the target ({@code scheme://host[:port]}), as a browser on it would send in {@code Origin}. */
    public String origin() {
        return baseUrl.getScheme() + "://" + baseUrl.getRawAuthority();
    }

    @Override
    public String toString() {
        return "ContractTarget[baseUrl=" + baseUrl + ", username=" + username + ", password=***]";
    }
}
