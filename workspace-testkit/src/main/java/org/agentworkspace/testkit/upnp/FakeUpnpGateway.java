package org.agentworkspace.testkit.upnp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A UPnP internet gateway on loopback for tests: answers SSDP searches sent to {@link #discoveryAddress()} (unicast,
 * no multicast needed), serves its device description, and implements the {@code WANIPConnection:1} actions
 * {@code GetExternalIPAddress}, {@code AddPortMapping} and {@code DeletePortMapping} over SOAP, keeping the mappings
 * in memory. {@link Mode} makes it misbehave the ways real routers and hostile peers do.
 */
public final class FakeUpnpGateway implements AutoCloseable {
    /** How the gateway behaves. */
    public enum Mode {
        /** A well-behaved router. */
        NORMAL,
        /** Every AddPortMapping fails with UPnP error 718 (ConflictInMappingEntry). */
        CONFLICT,
        /** The description carries a DOCTYPE with an external entity naming {@code secretFile}. */
        XXE,
        /** The SSDP answer points at a description on another host. */
        FOREIGN_LOCATION
    }

    /** A port mapping as the router holds it. */
    public record Mapping(int externalPort, String protocol, String internalClient, int internalPort,
                         String description) {
    }

    public static final String EXTERNAL_IP = "203.0.113.7";
    private static final String SERVICE = "urn:schemas-upnp-org:service:WANIPConnection:1";

    private final Mode mode;
    private final String secretFile;
    private final DatagramSocket udp;
    private final HttpServer http;
    private final Thread ssdp;
    private final Map<Integer, Mapping> mappings = new ConcurrentHashMap<>();
    private final List<String> actions = new CopyOnWriteArrayList<>();

    public FakeUpnpGateway() throws IOException {
        this(Mode.NORMAL, null);
    }

    public FakeUpnpGateway(Mode mode, String secretFile) throws IOException {
        this.mode = mode;
        this.secretFile = secretFile;
        InetAddress lo = InetAddress.getLoopbackAddress();
        udp = new DatagramSocket(new InetSocketAddress(lo, 0));
        http = HttpServer.create(new InetSocketAddress(lo, 0), 10);
        http.createContext("/desc.xml", this::description);
        http.createContext("/ctl", this::control);
        http.start();
        ssdp = Thread.ofVirtual().name("fake-ssdp").start(this::answerSearches);
    }

    /** Where the server under test should send its SSDP search ({@code host:port}). */
    public String discoveryAddress() {
        return "127.0.0.1:" + udp.getLocalPort();
    }

    /** The mappings the router holds now, by external port. */
    public Map<Integer, Mapping> mappings() {
        return Map.copyOf(mappings);
    }

    /** Every SOAP action received, in order. */
    public List<String> actions() {
        return List.copyOf(actions);
    }

    private void answerSearches() {
        byte[] buf = new byte[4096];
        while (!udp.isClosed()) {
            try {
                DatagramPacket in = new DatagramPacket(buf, buf.length);
                udp.receive(in);
                String req = new String(in.getData(), 0, in.getLength(), StandardCharsets.US_ASCII);
                if (!req.startsWith("M-SEARCH")) {
                    continue;
                }
                String host = mode == Mode.FOREIGN_LOCATION ? "127.0.0.2" : "127.0.0.1";
                String reply = "HTTP/1.1 200 OK\r\nCACHE-CONTROL: max-age=120\r\nST: "
                        + "urn:schemas-upnp-org:device:InternetGatewayDevice:1\r\nUSN: uuid:fake-gateway\r\n"
                        + "LOCATION: http://" + host + ":" + http.getAddress().getPort() + "/desc.xml\r\n\r\n";
                byte[] out = reply.getBytes(StandardCharsets.US_ASCII);
                udp.send(new DatagramPacket(out, out.length, in.getSocketAddress()));
            } catch (SocketException e) {
                return;
            } catch (IOException e) {
                // keep answering
            }
        }
    }

    private void description(HttpExchange ex) throws IOException {
        String doctype = mode == Mode.XXE
                ? "<!DOCTYPE root [<!ENTITY secret SYSTEM \"file://" + secretFile + "\">]>" : "";
        String friendly = mode == Mode.XXE ? "&secret;" : "Fake Router";
        String xml = "<?xml version=\"1.0\"?>" + doctype + "<root xmlns=\"urn:schemas-upnp-org:device-1-0\">"
                + "<device><deviceType>urn:schemas-upnp-org:device:InternetGatewayDevice:1</deviceType>"
                + "<friendlyName>" + friendly + "</friendlyName><deviceList><device>"
                + "<deviceType>urn:schemas-upnp-org:device:WANDevice:1</deviceType><deviceList><device>"
                + "<deviceType>urn:schemas-upnp-org:device:WANConnectionDevice:1</deviceType><serviceList><service>"
                + "<serviceType>" + SERVICE + "</serviceType><serviceId>urn:upnp-org:serviceId:WANIPConn1</serviceId>"
                + "<controlURL>/ctl</controlURL></service></serviceList></device></deviceList></device></deviceList>"
                + "</device></root>";
        respond(ex, 200, xml);
    }

    private void control(HttpExchange ex) throws IOException {
        String action = ex.getRequestHeaders().getFirst("SOAPAction");
        String body;
        try (InputStream in = ex.getRequestBody()) {
            body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String name = action == null ? "" : action.replace("\"", "").replaceFirst("^.*#", "");
        actions.add(name);
        switch (name) {
            case "GetExternalIPAddress" -> respond(ex, 200, envelope("<u:GetExternalIPAddressResponse xmlns:u=\""
                    + SERVICE + "\"><NewExternalIPAddress>" + EXTERNAL_IP
                    + "</NewExternalIPAddress></u:GetExternalIPAddressResponse>"));
            case "AddPortMapping" -> {
                if (mode == Mode.CONFLICT) {
                    respond(ex, 500, fault(718, "ConflictInMappingEntry"));
                    return;
                }
                int ext = Integer.parseInt(field(body, "NewExternalPort"));
                mappings.put(ext, new Mapping(ext, field(body, "NewProtocol"), field(body, "NewInternalClient"),
                        Integer.parseInt(field(body, "NewInternalPort")), field(body, "NewPortMappingDescription")));
                respond(ex, 200, envelope("<u:AddPortMappingResponse xmlns:u=\"" + SERVICE + "\"/>"));
            }
            case "DeletePortMapping" -> {
                if (mappings.remove(Integer.parseInt(field(body, "NewExternalPort"))) == null) {
                    respond(ex, 500, fault(714, "NoSuchEntryInArray"));
                    return;
                }
                respond(ex, 200, envelope("<u:DeletePortMappingResponse xmlns:u=\"" + SERVICE + "\"/>"));
            }
            default -> respond(ex, 500, fault(401, "Invalid Action"));
        }
    }

    private static String field(String body, String name) {
        Matcher m = Pattern.compile("<" + name + ">([^<]*)</" + name + ">").matcher(body);
        return m.find() ? m.group(1) : "";
    }

    private static String envelope(String inner) {
        return "<?xml version=\"1.0\"?><s:Envelope xmlns:s=\"http://schemas.xmlsoap.org/soap/envelope/\">"
                + "<s:Body>" + inner + "</s:Body></s:Envelope>";
    }

    private static String fault(int code, String description) {
        return envelope("<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>"
                + "<UPnPError xmlns=\"urn:schemas-upnp-org:control-1-0\"><errorCode>" + code + "</errorCode>"
                + "<errorDescription>" + description + "</errorDescription></UPnPError></detail></s:Fault>");
    }

    private static void respond(HttpExchange ex, int status, String xml) throws IOException {
        byte[] b = xml.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/xml; charset=\"utf-8\"");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    @Override
    public void close() throws InterruptedException {
        udp.close();
        http.stop(0);
        ssdp.join(2000);
    }
}
