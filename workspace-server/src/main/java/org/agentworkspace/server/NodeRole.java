package org.agentworkspace.server;

import java.net.URI;
import java.util.Locale;

/**
 * This node's part when several nodes serve one PostgreSQL store (docs/scale-out.md "Where work runs").
 *
 * @param advertiseUrl the base URL ({@code http(s)://host:port}, no path) other nodes forward requests to and
 *                     clients are sent to; null: derived from the bind address and the port it listens on
 *                     ({@link #advertised})
 * @param runnerOnly   the node executes runs and serves requests other nodes forward to it, but no web UI and no
 *                     other request (its public routes other than {@code /health} answer 403 {@code RUNNER_ONLY})
 */
public record NodeRole(String advertiseUrl, boolean runnerOnly) {
    public NodeRole {
        if (advertiseUrl != null) {
            URI u;
            try {
                u = URI.create(advertiseUrl);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--advertise-url is not a URL: " + e.getMessage());
            }
            String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null
                    || u.getRawUserInfo() != null || u.getRawQuery() != null || u.getRawFragment() != null
                    || (u.getRawPath() != null && !u.getRawPath().isEmpty() && !u.getRawPath().equals("/"))) {
                throw new IllegalArgumentException("--advertise-url must be http(s)://host[:port], without path, "
                        + "credentials or query");
            }
            advertiseUrl = advertiseUrl.endsWith("/") ? advertiseUrl.substring(0, advertiseUrl.length() - 1)
                    : advertiseUrl;
        }
    }

    public static NodeRole defaults() {
        return new NodeRole(null, false);
    }

    /**
     * The URL to record: {@link #advertiseUrl} when set, else {@code http://<bind address>:<port>}, with this
     * machine's host name for a wildcard bind ({@code 0.0.0.0}, {@code ::}).
     */
    public String advertised(String bindHost, int port, String machineName) {
        if (advertiseUrl != null) {
            return advertiseUrl;
        }
        String h = bindHost.strip();
        if (h.isEmpty() || h.equals("0.0.0.0") || h.equals("::") || h.equals("[::]")) {
            h = machineName;
        }
        if (h.contains(":") && !h.startsWith("[")) {
            h = "[" + h + "]";
        }
        return "http://" + h + ":" + port;
    }
}
