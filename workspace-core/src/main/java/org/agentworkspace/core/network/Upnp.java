package org.agentworkspace.core.network;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.agentworkspace.api.WorkspaceException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * A TCP port mapping on the router through UPnP IGD: discovery by SSDP, the gateway's device description, and the
 * {@code WANIPConnection} / {@code WANPPPConnection} SOAP actions {@code GetExternalIPAddress}, {@code AddPortMapping}
 * and {@code DeletePortMapping}.
 *
 * <p>Safety: only a gateway whose description lives on the address that answered the discovery is used (a LAN
 * peer cannot point us at another host), only {@code http} descriptions are fetched, XML is parsed with DTDs and
 * external entities disabled, responses are bounded to 256 KiB, and every step has a timeout. The mapping points
 * the router's port at this machine's address on the route to the gateway, so the service must listen there.
 */
public final class Upnp {
    private static final String IGD = "urn:schemas-upnp-org:device:InternetGatewayDevice:1";
    private static final int MAX_BODY = 256 * 1024;
    private static final String DESCRIPTION = "Agent Workspace";

    /** The mapping now. */
    public record State(boolean active, String externalIp, Integer mappedPort) {
        public static final State INACTIVE = new State(false, null, null);
    }

    /** A gateway found by discovery: its control URL, service type and the local address that routes to it. */
    record Gateway(URI controlUrl, String serviceType, InetAddress localAddress) {
    }

    private final InetSocketAddress discoveryTarget;
    private final Duration timeout;
    private final LazyHttpClient http;
    private State state = State.INACTIVE;
    private Gateway mappedOn;

    /**
     * @param discoveryTarget where SSDP searches go: the multicast group {@code 239.255.255.250:1900}, or a unicast
     *                        address (tests, or a router that only answers directly)
     * @param timeout         how long discovery and each request may take
     */
    public Upnp(InetSocketAddress discoveryTarget, Duration timeout) {
        this.discoveryTarget = Objects.requireNonNull(discoveryTarget);
        this.timeout = Objects.requireNonNull(timeout);
        this.http = new LazyHttpClient(() -> HttpClient.newBuilder().connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NEVER).proxy(HttpClient.Builder.NO_PROXY).build());
    }

    /** The standard SSDP multicast group. */
    public static InetSocketAddress multicast() {
        return new InetSocketAddress("239.255.255.250", 1900);
    }

    public synchronized State state() {
        return state;
    }

    /**
     * Maps {@code port} (TCP) on the router to the same port on this machine, or confirms the mapping we made.
     *
     * @param bindHost the service's bind address: the mapping is refused with {@code NOT_LISTENING_ON_LAN} when the
     *                 service does not listen on the address the router would forward to
     */
    public synchronized State map(String bindHost, int port) {
        if (state.active() && Objects.equals(state.mappedPort(), port)) {
            return state;
        }
        Gateway gw = discover();
        if (!NetworkEndpoints.listensOn(bindHost, gw.localAddress())) {
            throw new WorkspaceException.Conflict(NetworkErrorCodes.NOT_LISTENING_ON_LAN, "the router would forward"
                    + " to " + gw.localAddress().getHostAddress() + ", but the service listens on " + bindHost
                    + " only: start it with --host 0.0.0.0 (or that address) first");
        }
        String externalIp = soap(gw, "GetExternalIPAddress", "").flatMap(d -> text(d, "NewExternalIPAddress"))
                .orElse(null);
        String args = "<NewRemoteHost></NewRemoteHost><NewExternalPort>" + port + "</NewExternalPort>"
                + "<NewProtocol>TCP</NewProtocol><NewInternalPort>" + port + "</NewInternalPort>"
                + "<NewInternalClient>" + gw.localAddress().getHostAddress() + "</NewInternalClient>"
                + "<NewEnabled>1</NewEnabled><NewPortMappingDescription>" + DESCRIPTION
                + "</NewPortMappingDescription><NewLeaseDuration>0</NewLeaseDuration>";
        soap(gw, "AddPortMapping", args);
        mappedOn = gw;
        state = new State(true, externalIp, port);
        return state;
    }

    /** Removes the mapping this service made; fine when there is none. */
    public synchronized State unmap() {
        if (state.active() && mappedOn != null) {
            String args = "<NewRemoteHost></NewRemoteHost><NewExternalPort>" + state.mappedPort()
                    + "</NewExternalPort><NewProtocol>TCP</NewProtocol>";
            try {
                soap(mappedOn, "DeletePortMapping", args);
            } catch (WorkspaceException e) {
                if (!NetworkErrorCodes.UPNP_UNAVAILABLE.equals(e.code())) {
                    throw e;
                }
                // the router forgot it (or is gone): nothing left to remove on our side
            }
        }
        mappedOn = null;
        state = State.INACTIVE;
        return state;
    }

    // ------------------------------------------------------------------ discovery

    Gateway discover() {
        String search = "M-SEARCH * HTTP/1.1\r\nHOST: 239.255.255.250:1900\r\nMAN: \"ssdp:discover\"\r\nMX: 2\r\n"
                + "ST: " + IGD + "\r\n\r\n";
        byte[] out = search.getBytes(StandardCharsets.US_ASCII);
        long deadline = System.nanoTime() + timeout.toNanos();
        try (DatagramSocket socket = new DatagramSocket()) {
            socket.send(new DatagramPacket(out, out.length, discoveryTarget));
            byte[] buf = new byte[8192];
            while (true) {
                long left = (deadline - System.nanoTime()) / 1_000_000;
                if (left <= 0) {
                    break;
                }
                socket.setSoTimeout((int) Math.max(1, left));
                DatagramPacket in = new DatagramPacket(buf, buf.length);
                try {
                    socket.receive(in);
                } catch (SocketTimeoutException e) {
                    break;
                }
                String reply = new String(in.getData(), 0, in.getLength(), StandardCharsets.US_ASCII);
                Optional<URI> location = header(reply, "location").flatMap(Upnp::httpUri);
                if (location.isPresent() && sameHost(location.get(), in.getAddress())) {
                    Optional<Gateway> gw = describe(location.get());
                    if (gw.isPresent()) {
                        return gw.get();
                    }
                }
            }
        } catch (IOException e) {
            throw unavailable("UPnP discovery failed: " + e.getMessage());
        }
        throw unavailable("no UPnP internet gateway answered within " + timeout.toMillis() + " ms");
    }

    private Optional<Gateway> describe(URI location) {
        Document d = fetch(HttpRequest.newBuilder(location).timeout(timeout).GET().build()).orElse(null);
        if (d == null) {
            return Optional.empty();
        }
        String base = text(d, "URLBase").orElse(location.toString());
        NodeList services = d.getElementsByTagNameNS("*", "service");
        for (int i = 0; i < services.getLength(); i++) {
            Element s = (Element) services.item(i);
            String type = childText(s, "serviceType");
            String control = childText(s, "controlURL");
            if (type == null || control == null || !(type.contains(":WANIPConnection:")
                    || type.contains(":WANPPPConnection:"))) {
                continue;
            }
            URI controlUrl;
            try {
                controlUrl = URI.create(base).resolve(control.strip());
            } catch (IllegalArgumentException e) {
                continue;
            }
            if (!"http".equals(controlUrl.getScheme()) || !Objects.equals(controlUrl.getHost(), location.getHost())) {
                continue;
            }
            try (DatagramSocket probe = new DatagramSocket()) {
                probe.connect(new InetSocketAddress(controlUrl.getHost(), port(controlUrl)));
                return Optional.of(new Gateway(controlUrl, type.strip(), probe.getLocalAddress()));
            } catch (IOException e) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    // ------------------------------------------------------------------ SOAP

    private Optional<Document> soap(Gateway gw, String action, String args) {
        String body = "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\""
                + " s:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\"><s:Body><u:" + action
                + " xmlns:u=\"" + gw.serviceType() + "\">" + args + "</u:" + action + "></s:Body></s:Envelope>";
        HttpRequest req = HttpRequest.newBuilder(gw.controlUrl()).timeout(timeout)
                .header("Content-Type", "text/xml; charset=\"utf-8\"")
                .header("SOAPAction", "\"" + gw.serviceType() + "#" + action + "\"")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
        HttpResponse<byte[]> res = send(req);
        if (res.statusCode() != 200) {
            String code = parse(res.body()).flatMap(d -> text(d, "errorCode")).orElse("HTTP " + res.statusCode());
            if (code.equals("718")) {
                throw new WorkspaceException.Conflict(NetworkErrorCodes.UPNP_CONFLICT,
                        "the router already maps this port to another machine");
            }
            String desc = parse(res.body()).flatMap(d -> text(d, "errorDescription")).orElse("");
            throw unavailable("the router refused " + action + " (" + code + (desc.isEmpty() ? "" : ", "
                    + desc.substring(0, Math.min(desc.length(), 120))) + ")");
        }
        return parse(res.body());
    }

    private Optional<Document> fetch(HttpRequest req) {
        HttpResponse<byte[]> res = send(req);
        return res.statusCode() == 200 ? parse(res.body()) : Optional.empty();
    }

    private HttpResponse<byte[]> send(HttpRequest req) {
        try {
            HttpResponse<byte[]> res = http.get().send(req, info -> HttpResponse.BodySubscribers.mapping(
                    HttpResponse.BodySubscribers.ofInputStream(), in -> {
                        try (in) {
                            return in.readNBytes(MAX_BODY);
                        } catch (IOException e) {
                            return new byte[0];
                        }
                    }));
            return res;
        } catch (IOException e) {
            throw unavailable("the UPnP gateway did not answer: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable("interrupted");
        }
    }

    /** Parses XML with DTDs, external entities and XInclude off (a hostile gateway cannot read our files). */
    static Optional<Document> parse(byte[] xml) {
        if (xml == null || xml.length == 0) {
            return Optional.empty();
        }
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            f.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(null);
            return Optional.of(b.parse(new ByteArrayInputStream(xml)));
        } catch (ParserConfigurationException | SAXException | IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<String> text(Document d, String localName) {
        NodeList n = d.getElementsByTagNameNS("*", localName);
        return n.getLength() == 0 ? Optional.empty() : Optional.of(n.item(0).getTextContent().strip());
    }

    private static String childText(Element parent, String localName) {
        NodeList n = parent.getElementsByTagNameNS("*", localName);
        return n.getLength() == 0 ? null : n.item(0).getTextContent();
    }

    private static Optional<String> header(String reply, String name) {
        for (String line : reply.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).strip().toLowerCase(Locale.ROOT).equals(name)) {
                return Optional.of(line.substring(colon + 1).strip());
            }
        }
        return Optional.empty();
    }

    private static Optional<URI> httpUri(String s) {
        try {
            URI u = URI.create(s);
            return "http".equals(u.getScheme()) && u.getHost() != null ? Optional.of(u) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static boolean sameHost(URI location, InetAddress responder) {
        try {
            return InetAddress.getByName(location.getHost()).equals(responder);
        } catch (IOException e) {
            return false;
        }
    }

    private static int port(URI u) {
        return u.getPort() > 0 ? u.getPort() : 80;
    }

    private static WorkspaceException unavailable(String message) {
        return new WorkspaceException.Unavailable(NetworkErrorCodes.UPNP_UNAVAILABLE, message, null);
    }
}
