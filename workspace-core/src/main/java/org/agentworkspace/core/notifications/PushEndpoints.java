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
 * resolved again and each address checked the same way. The single exception, for tests and local development,
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

    /**
     * Whether the host's addresses may be contacted now (DNS resolved at delivery).
     */
    static boolean deliverable(URI uri, boolean allowLoopbackHttp) {
        if (allowLoopbackHttp && "127.0.0.1".equals(uri.getHost())) {
            return true;
        }
        try {
            for (InetAddress a : InetAddress.getAllByName(uri.getHost())) {
                if (!isPublic(a)) {
                    return false;
                }
            }
            return true;
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static boolean isIpLiteral(String h) {
        return h.startsWith("[") || h.matches("[0-9.]+");
    }

    static boolean isPublic(InetAddress a) {
        if (a.isLoopbackAddress() || a.isAnyLocalAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress()
                || a.isMulticastAddress()) {
            return false;
        }
        byte[] b = a.getAddress();
        if (b.length == 4) {
            int first = b[0] & 0xff;
            int second = b[1] & 0xff;
            int third = b[2] & 0xff;
            return !(first == 0 || first >= 240 || (first == 100 && second >= 64 && second < 128)
                    || (first == 192 && second == 0 && (third == 0 || third == 2)) || (first == 198 && (second & 0xfe) == 18)
                    || (first == 198 && second == 51 && third == 100) || (first == 203 && second == 0 && third == 113));
        }
        // IPv6: unique local fc00::/7, documentation 2001:db8::/32, discard-only 100::/64; addresses that carry an
        // IPv4 address (mapped ::ffff:0:0/96, translated ::ffff:0:0:0/96, compatible ::/96, NAT64 64:ff9b::/96,
        // 6to4 2002::/16) are judged by it
        if ((b[0] & 0xfe) == 0xfc || (b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x01 && (b[2] & 0xff) == 0x0d
                && (b[3] & 0xff) == 0xb8) {
            return false;
        }
        if ((b[0] & 0xff) == 0x01 && b[1] == 0 && zeros(b, 2, 8)) {
            return false; // 100::/64
        }
        if (zeros(b, 0, 10) && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
            return embedded(b, 12);
        }
        if (zeros(b, 0, 8) && (b[8] & 0xff) == 0xff && (b[9] & 0xff) == 0xff && zeros(b, 10, 12)) {
            return embedded(b, 12);
        }
        if (zeros(b, 0, 12)) {
            return embedded(b, 12);
        }
        if (b[0] == 0 && (b[1] & 0xff) == 0x64 && (b[2] & 0xff) == 0xff && (b[3] & 0xff) == 0x9b && zeros(b, 4, 12)) {
            return embedded(b, 12);
        }
        if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
            return embedded(b, 2);
        }
        return true;
    }

    private static boolean zeros(byte[] b, int from, int to) {
        for (int i = from; i < to; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean embedded(byte[] b, int at) {
        try {
            return isPublic(InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, at, at + 4)));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static WorkspaceException.Validation invalid(String message) {
        return new WorkspaceException.Validation(NotificationErrorCodes.INVALID_PUSH_ENDPOINT, message);
    }
}
