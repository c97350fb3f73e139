package org.agentworkspace.core.network;

/** Stable error codes of the network family. */
public final class NetworkErrorCodes {
    /** 503: neither cloudflared nor ngrok is installed. */
    public static final String TUNNEL_UNAVAILABLE = "TUNNEL_UNAVAILABLE";
    /** 503: the tunnel tool started but gave no public URL in time, or exited. */
    public static final String TUNNEL_FAILED = "TUNNEL_FAILED";
    /** 503: no UPnP internet gateway answered, or it refused the request. */
    public static final String UPNP_UNAVAILABLE = "UPNP_UNAVAILABLE";
    /** 409: the router already maps the port to another machine. */
    public static final String UPNP_CONFLICT = "UPNP_CONFLICT";
    /** 409: the service does not listen on the address the router would forward to (it is bound to loopback). */
    public static final String NOT_LISTENING_ON_LAN = "NOT_LISTENING_ON_LAN";

    /**
     * 400: a URL the service would connect to (a provider's baseUrl) names a loopback, private or link-local address
     * (or an internal-only name) that the administrator has not allowed with {@code --outbound-allow}.
     */
    public static final String OUTBOUND_ADDRESS_REFUSED = "OUTBOUND_ADDRESS_REFUSED";

    private NetworkErrorCodes() {
    }
}
