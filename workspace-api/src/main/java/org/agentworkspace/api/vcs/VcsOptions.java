package org.agentworkspace.api.vcs;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Settings of an opened {@link Vcs}.
 *
 * @param maxDiffBytes largest diff returned, in bytes of UTF-8 text; longer diffs are cut and flagged
 *                     ({@link DiffResult#truncated()}); default {@value #DEFAULT_MAX_DIFF_BYTES}
 * @param credentialOrigins origins ({@code scheme://host[:port]}, lower case, default port omitted) to which
 *                          {@link GitCredentials} may be sent; default only {@code https://github.com}. A remote
 *                          whose URL is not on one of these origins never sees the credentials
 * @param networkTimeout timeout of each network read or connect of push and pull; default 60 seconds
 */
public record VcsOptions(long maxDiffBytes, Set<String> credentialOrigins, Duration networkTimeout) {
    /** 1 MiB. */
    public static final long DEFAULT_MAX_DIFF_BYTES = 1L << 20;

    public VcsOptions {
        if (maxDiffBytes < 1) {
            throw new IllegalArgumentException("maxDiffBytes must be positive");
        }
        Objects.requireNonNull(networkTimeout, "networkTimeout");
        if (networkTimeout.isNegative() || networkTimeout.isZero()) {
            throw new IllegalArgumentException("networkTimeout must be positive");
        }
        credentialOrigins = credentialOrigins.stream().map(VcsOptions::normaliseOrigin)
                .collect(Collectors.toUnmodifiableSet());
    }

    /** The defaults described above. */
    public static VcsOptions defaults() {
        return new VcsOptions(DEFAULT_MAX_DIFF_BYTES, Set.of("https://github.com"), Duration.ofSeconds(60));
    }

    public VcsOptions withMaxDiffBytes(long value) {
        return new VcsOptions(value, credentialOrigins, networkTimeout);
    }

    public VcsOptions withCredentialOrigins(Set<String> value) {
        return new VcsOptions(maxDiffBytes, value, networkTimeout);
    }

    public VcsOptions withNetworkTimeout(Duration value) {
        return new VcsOptions(maxDiffBytes, credentialOrigins, value);
    }

    /** {@code true} when credentials may be sent to a remote at this scheme, host and port ({@code -1}: default). */
    public boolean allowsCredentialsFor(String scheme, String host, int port) {
        if (scheme == null || host == null) {
            return false;
        }
        return credentialOrigins.contains(origin(scheme, host, port));
    }

    private static String normaliseOrigin(String value) {
        URI uri;
        try {
            uri = URI.create(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not an origin: " + value, e);
        }
        if (uri.getScheme() == null || uri.getHost() == null || uri.getUserInfo() != null
                || (uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/"))
                || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("not an origin (scheme://host[:port]): " + value);
        }
        return origin(uri.getScheme(), uri.getHost(), uri.getPort());
    }

    private static String origin(String scheme, String host, int port) {
        String s = scheme.toLowerCase(Locale.ROOT);
        int defaultPort = switch (s) {
            case "https" -> 443;
            case "http" -> 80;
            default -> -1;
        };
        String portPart = port < 0 || port == defaultPort ? "" : ":" + port;
        return s + "://" + host.toLowerCase(Locale.ROOT) + portPart;
    }
}
