package org.agentworkspace.core.network;

import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The URLs under which this service can be reached from other machines: one per IPv4 address it listens on. */
public final class NetworkEndpoints {
    private NetworkEndpoints() {
    }

    /**
     * {@code http://<ip>:<port>} for every IPv4 address the service listens on: the one address it is bound to, or,
     * bound to a wildcard ({@code 0.0.0.0} / {@code ::}), every IPv4 address of every interface that is up, LAN
     * addresses first and loopback last.
     */
    public static List<String> list(String bindHost, int port) {
        List<Inet4Address> addresses = addresses(bindHost);
        List<String> out = new ArrayList<>();
        for (Inet4Address a : addresses) {
            out.add("http://" + a.getHostAddress() + ":" + port);
        }
        return out;
    }

    /** The IPv4 addresses the service listens on (see {@link #list}). */
    public static List<Inet4Address> addresses(String bindHost) {
        try {
            InetAddress bound = InetAddress.getByName(bindHost);
            if (!bound.isAnyLocalAddress()) {
                return bound instanceof Inet4Address v4 ? List.of(v4) : List.of();
            }
            List<Inet4Address> all = new ArrayList<>();
            for (NetworkInterface nic : NetworkInterface.networkInterfaces().toList()) {
                if (!nic.isUp()) {
                    continue;
                }
                nic.inetAddresses().filter(a -> a instanceof Inet4Address).map(a -> (Inet4Address) a)
                        .forEach(all::add);
            }
            all.sort(Comparator.comparing((Inet4Address a) -> a.isLoopbackAddress())
                    .thenComparing(Inet4Address::getHostAddress));
            return all;
        } catch (UnknownHostException e) {
            return List.of();
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether a service bound to {@code bindHost} accepts connections addressed to {@code address}. */
    public static boolean listensOn(String bindHost, InetAddress address) {
        try {
            InetAddress bound = InetAddress.getByName(bindHost);
            return bound.isAnyLocalAddress() || bound.equals(address);
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
