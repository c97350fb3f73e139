package org.agentworkspace.core.network;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import org.agentworkspace.api.WorkspaceException;

/**
 * Which addresses the service itself connects to on a user's behalf (a provider's {@code baseUrl} for the model
 * list, Web Push endpoints): public addresses only. Loopback, unspecified, private (RFC 1918), link-local (the cloud
 * metadata service 169.254.169.254), unique-local, shared (100.64/10), multicast, documentation and reserved ranges,
 * and IPv6 forms that carry such an IPv4 address are refused, as are the names {@code localhost},
 * {@code *.localhost}, {@code *.local} and {@code *.internal} — unless the administrator allows that exact endpoint
 * ({@code host:port} in {@code --outbound-allow}, e.g. a model server on this machine).
 *
 * <p>A URL is checked twice: by {@link #checkUrl} when it is stored (its literal host), and by {@link #checkConnect}
 * right before each connection, which resolves the name through {@link Resolver} and refuses when any address is
 * not public, so a name that resolves to an internal address is caught where it is used.
 */
public final class OutboundPolicy {
    /** Turns a host name into its addresses ({@link InetAddress#getAllByName} unless a test installs another). */
    @FunctionalInterface
    public interface Resolver {
        InetAddress[] resolve(String host) throws UnknownHostException;
    }

    /** The system resolver. */
    public static final Resolver SYSTEM = InetAddress::getAllByName;

    private final Set<String> allowed;
    private final Resolver resolver;

    private OutboundPolicy(Set<String> allowed, Resolver resolver) {
        this.allowed = allowed;
        this.resolver = resolver;
    }

    /**
     * @param allowed  {@code host:port} endpoints allowed although they are not public ({@code [::1]:8080} for IPv6)
     * @param resolver how names are resolved at connection time
     */
    public static OutboundPolicy create(Set<String> allowed, Resolver resolver) {
        return new OutboundPolicy(normalise(allowed), Objects.requireNonNull(resolver, "resolver"));
    }

    /** Public addresses only, resolved by the system. */
    public static OutboundPolicy publicOnly() {
        return create(Set.of(), SYSTEM);
    }

    /** The endpoints allowed although not public, normalised ({@code host:port}, lower case). */
    public Set<String> allowed() {
        return allowed;
    }

    /** The same allowed endpoints with another resolver. */
    public OutboundPolicy withResolver(Resolver r) {
        return new OutboundPolicy(allowed, Objects.requireNonNull(r, "resolver"));
    }

    /**
     * Validates an {@code host:port} list entry and returns it normalised.
     *
     * @throws IllegalArgumentException when it is not {@code host:port}
     */
    public static String normaliseEntry(String entry) {
        String e = entry.strip().toLowerCase(Locale.ROOT);
        int colon = e.lastIndexOf(':');
        if (colon <= 0 || colon == e.length() - 1) {
            throw new IllegalArgumentException("outbound-allow entries are host:port, got '" + entry + "'");
        }
        String host = e.substring(0, colon);
        int port;
        try {
            port = Integer.parseInt(e.substring(colon + 1));
        } catch (NumberFormatException x) {
            throw new IllegalArgumentException("outbound-allow entries are host:port, got '" + entry + "'");
        }
        if (port < 1 || port > 65535 || host.isEmpty() || (host.contains(":") && !host.startsWith("["))) {
            throw new IllegalArgumentException("outbound-allow entries are host:port ([v6]:port), got '" + entry + "'");
        }
        return host + ":" + port;
    }

    private static Set<String> normalise(Set<String> entries) {
        return entries.stream().map(OutboundPolicy::normaliseEntry).collect(Collectors.toUnmodifiableSet());
    }

    /** Whether the administrator allowed this URL's endpoint (host and effective port). */
    public boolean allows(URI uri) {
        String host = uri.getHost();
        if (host == null || allowed.isEmpty()) {
            return false;
        }
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        return allowed.contains(host.toLowerCase(Locale.ROOT) + ":" + port);
    }

    /**
     * The stored-URL check: refuses an endpoint whose literal host is not public (an IP literal of an internal
     * range, or an internal-only name) unless allowed. No DNS lookup: names are checked at connection time.
     *
     * @throws WorkspaceException.Validation {@code OUTBOUND_ADDRESS_REFUSED}
     */
    public void checkUrl(URI uri, String what) {
        if (allows(uri)) {
            return;
        }
        String host = uri.getHost();
        if (host == null) {
            throw refused(what + " has no host");
        }
        String h = host.toLowerCase(Locale.ROOT);
        if (internalName(h)) {
            throw refused(what + " names a local or internal host; an administrator must allow the endpoint "
                    + "(--outbound-allow host:port)");
        }
        if (isIpLiteral(h)) {
            try {
                if (!isPublic(InetAddress.getByName(h.startsWith("[") ? h.substring(1, h.length() - 1) : h))) {
                    throw refused(what + " names a loopback, private or link-local address; an administrator "
                            + "must allow the endpoint (--outbound-allow host:port)");
                }
            } catch (UnknownHostException e) {
                throw refused(what + " is not a valid address");
            }
        }
    }

    /**
     * The connection-time check: resolves the host now and refuses when the endpoint is not allowed and any of its
     * addresses is not public.
     *
     * @throws IOException with a message naming the reason (never the URL's path or query)
     */
    public void checkConnect(URI uri) throws IOException {
        if (allows(uri)) {
            return;
        }
        String host = uri.getHost();
        if (host == null) {
            throw new IOException("the endpoint has no host");
        }
        String h = host.toLowerCase(Locale.ROOT);
        if (internalName(h)) {
            throw new RefusedAddressException("the endpoint names a local or internal host");
        }
        InetAddress[] addresses;
        try {
            addresses = h.startsWith("[") ? new InetAddress[] {InetAddress.getByName(h.substring(1, h.length() - 1))}
                    : isIpLiteral(h) ? new InetAddress[] {InetAddress.getByName(h)} : resolver.resolve(h);
        } catch (UnknownHostException e) {
            throw new IOException("the endpoint's host cannot be resolved");
        }
        if (addresses == null || addresses.length == 0) {
            throw new IOException("the endpoint's host cannot be resolved");
        }
        for (InetAddress a : addresses) {
            if (!isPublic(a)) {
                throw new RefusedAddressException("the endpoint's host resolves to a loopback, private or link-local "
                        + "address; an administrator must allow the endpoint (--outbound-allow host:port)");
            }
        }
    }

    /** A connection refused because of the address it would reach. */
    public static final class RefusedAddressException extends IOException {
        public RefusedAddressException(String message) {
            super(message);
        }
    }

    private static boolean internalName(String h) {
        return h.equals("localhost") || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal")
                || h.endsWith(".");
    }

    private static boolean isIpLiteral(String h) {
        return h.startsWith("[") || h.matches("[0-9.]+");
    }

    /** Whether {@code a} is a public unicast address (see the class description). */
    public static boolean isPublic(InetAddress a) {
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
                    || (first == 192 && second == 0 && (third == 0 || third == 2))
                    || (first == 198 && (second & 0xfe) == 18)
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
            return false;
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
            return isPublic(InetAddress.getByAddress(Arrays.copyOfRange(b, at, at + 4)));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static WorkspaceException refused(String message) {
        return new WorkspaceException.Validation(NetworkErrorCodes.OUTBOUND_ADDRESS_REFUSED, message);
    }
}
