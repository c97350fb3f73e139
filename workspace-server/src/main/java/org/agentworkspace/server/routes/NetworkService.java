package org.agentworkspace.server.routes;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.agentworkspace.core.network.NetworkEndpoints;
import org.agentworkspace.core.network.Tunnels;
import org.agentworkspace.core.network.Upnp;
import org.agentworkspace.server.ServerConfig;
import org.agentworkspace.server.http.Access;
import org.agentworkspace.server.http.ApiService;
import org.agentworkspace.server.http.Call;
import org.agentworkspace.server.http.Guard;
import org.agentworkspace.server.http.RouteTable;

/**
 * Exposure beyond this machine ({@code /api/network/*}), administrator sessions only: the addresses the service
 * listens on, a UPnP mapping of its port on the router, and a public tunnel whose origin (and host name) is allowed
 * while it is open. Both are undone when the server stops.
 *
 * <p>Environment: {@code AW_UPNP_DISCOVERY} ({@code host:port}) sends the SSDP search there instead of the multicast
 * group {@code 239.255.255.250:1900}; {@code AW_TUNNEL_START_SECONDS} (default 30) bounds the wait for the tunnel
 * tool's public URL.
 */
public final class NetworkService extends ApiService {
    private final ServerConfig config;
    private final Tunnels tunnels;
    private final Upnp upnp;

    private NetworkService(ServerConfig config, Tunnels tunnels, Upnp upnp, Guard guard, RouteTable table) {
        super("network", guard, table);
        this.config = config;
        this.tunnels = tunnels;
        this.upnp = upnp;
    }

    public static NetworkService create(ServerConfig config, Map<String, String> env, Guard guard, RouteTable table) {
        Duration start = Duration.ofSeconds(Long.parseLong(env.getOrDefault("AW_TUNNEL_START_SECONDS", "30").strip()));
        // the tunnel's origin is allowed exactly while it is open (also when the tool exits by itself)
        String[] exposed = new String[1];
        Tunnels tunnels = new Tunnels(env, config.engine().dataDir().resolve("cli-bin"), start, state -> {
            synchronized (exposed) {
                if (exposed[0] != null) {
                    guard.unexpose(exposed[0]);
                    exposed[0] = null;
                }
                if (state.active()) {
                    exposed[0] = origin(state.url());
                    guard.expose(exposed[0]);
                }
            }
        });
        String discovery = env.get("AW_UPNP_DISCOVERY");
        InetSocketAddress target = discovery == null || discovery.isBlank() ? Upnp.multicast() : address(discovery);
        NetworkService service = new NetworkService(config, tunnels, new Upnp(target, Duration.ofSeconds(3)), guard,
                table);
        return service;
    }

    private static InetSocketAddress address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon < 1) {
            throw new IllegalArgumentException("AW_UPNP_DISCOVERY must be host:port");
        }
        return new InetSocketAddress(hostPort.substring(0, colon).strip(),
                Integer.parseInt(hostPort.substring(colon + 1).strip()));
    }

    @Override
    protected void declare(Routes r) {
        Access admin = Access.session().admin();
        r.get("/api/network/endpoints", admin, this::endpoints)
                .get("/api/network/external", admin, this::external)
                .post("/api/network/upnp", admin, this::map)
                .delete("/api/network/upnp", admin, this::unmap)
                .post("/api/network/tunnel", admin, this::openTunnel)
                .delete("/api/network/tunnel", admin, this::closeTunnel);
    }

    @Override
    public void afterStop() {
        try {
            tunnels.stop();
        } finally {
            try {
                upnp.unmap();
            } catch (RuntimeException e) {
                System.getLogger(NetworkService.class.getName()).log(System.Logger.Level.WARNING,
                        "could not remove the UPnP mapping: " + e.getMessage());
            }
        }
    }

    private void endpoints(Call call) {
        int port = localPort(call);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", true);
        m.put("endpoints", NetworkEndpoints.list(config.host(), port));
        m.put("port", port);
        call.ok(m);
    }

    private void external(Call call) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("success", true);
        m.put("upnp", view(upnp.state()));
        m.put("tunnel", view(tunnels.state()));
        call.ok(m);
    }

    private void map(Call call) {
        Upnp.State s = upnp.map(config.host(), localPort(call));
        call.ack("upnp", view(s));
    }

    private void unmap(Call call) {
        call.ack("upnp", view(upnp.unmap()));
    }

    private void openTunnel(Call call) {
        String host = config.loopbackOnly() || config.host().equals("0.0.0.0") || config.host().equals("::")
                ? "127.0.0.1" : config.host();
        if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        Tunnels.State s = tunnels.open("http://" + host + ":" + localPort(call));
        call.ack("url", s.url(), "provider", s.provider());
    }

    private void closeTunnel(Call call) {
        tunnels.stop();
        call.ack();
    }

    private static String origin(String url) {
        java.net.URI u = java.net.URI.create(url);
        return u.getScheme() + "://" + u.getRawAuthority();
    }

    private static int localPort(Call call) {
        SocketAddress a = call.request().localPeer().address();
        return a instanceof InetSocketAddress inet ? inet.getPort() : 0;
    }

    private static Map<String, Object> view(Upnp.State s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("active", s.active());
        m.put("externalIp", s.externalIp());
        m.put("mappedPort", s.mappedPort());
        return m;
    }

    private static Map<String, Object> view(Tunnels.State s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("active", s.active());
        m.put("provider", s.provider());
        m.put("url", s.url());
        return m;
    }
}
