package org.agentworkspace.core.notifications;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;

import org.agentworkspace.api.WorkspaceException;

/**
 * Which push endpoints the service will send to. A push endpoint is a URL the browser's push service hands out
 * (FCM, Mozilla autopush, Apple, WNS …): always {@code https} on a public host. The service refuses anything else,
 * so a subscription cannot turn it into a client of internal addresses: not https, user info, a fragment, a host
 * that is an IP literal or a name of a loopback, private, link-local, unique-local, shared or multicast address,
 * {@code localhost} and {@code *.localhost}/{@code *.local}/{@code *.internal} names, a port other than 443,
 * documentation and discard ranges, IPv6 forms that carry a non-public IPv4 address. At delivery the host is
 * resolved again and each address checked the same way ({@link org.agentworkspace.core.network.OutboundPolicy}). The single exception, for tests and local development,
 * is {@code http://127.0.0.1:<port>/…} (and https on it) when {@link WebPushSettings#allowLoopbackHttp} is on.
 */
final class PushEndpoints {
    static final int MAX_LENGTH = 2048;

    private PushEndpoints() {
    }

    /** Parses and checks an endpoint as a client sent it (no DNS lookup). */
    static URI parse(String text, boolean allowLoopbackHttp) {
        if (text == null || text.isBlank()) {
            throw invalid("endpoint is required");
        }
        if (text.length() > MAX_LENGTH) {
            throw invalid("endpoint is longer than " + MAX_LENGTH + " characters");
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw invalid("endpoint is not a URL");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        String host = uri.getHost();
        if (!uri.isAbsolute() || host == null || uri.getRawAuthority() == null) {
            throw invalid("endpoint must be an absolute https URL");
        }
        if (uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
            throw invalid("endpoint must not carry user info or a fragment");
        }
        boolean loopbackDev = allowLoopbackHttp && host.equals("127.0.0.1");
        if (!scheme.equals("https") && !(loopbackDev && scheme.equals("http"))) {
            throw invalid("endpoint must be an https URL");
        }
        if (!loopbackDev) {
            if (uri.getPort() != -1 && uri.getPort() != 443) {
                throw invalid("endpoint must use the https port (443): push services do");
            }
            String h = host.toLowerCase(Locale.ROOT);
            if (h.equals("localhost") || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal")
                    || h.endsWith(".")) {
                throw invalid("endpoint must name a public host");
            }
            if (isIpLiteral(h)) {
                try {
                    if (!isPublic(InetAddress.getByName(h.startsWith("[") ? h.substring(1, h.length() - 1) : h))) {
                        throw invalid("endpoint must name a public host");
                    }
                } catch (UnknownHostException e) {
                    throw invalid("endpoint must name a public host");
                }
            }
        }
        return uri;
    }

    private static boolean isIpLiteral(String h) {
        return h.startsWith("[") || h.matches("[0-9.]+");
    }

    static boolean isPublic(InetAddress a) {
        return org.agentworkspace.core.network.OutboundPolicy.isPublic(a);
    }

    private static WorkspaceException.Validation invalid(String message) {
        return new WorkspaceException.Validation(NotificationErrorCodes.INVALID_PUSH_ENDPOINT, message);
    }
}
