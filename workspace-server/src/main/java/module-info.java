/** The HTTP server: a thin mapping of the engine onto the spec's routes. The only module that sees Helidon. */
module org.agentworkspace.server {
    requires org.agentworkspace.core;
    requires org.agentworkspace.web;
    requires io.helidon.webserver;
    requires io.helidon.webserver.sse;
    requires io.helidon.webserver.websocket;
    requires io.helidon.security.jwt;
    requires io.helidon.logging.jul;
    requires io.helidon.logging.common;
    requires jdk.management;
    requires java.logging;
    requires java.net.http;
    requires jakarta.json;
    requires com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.dataformat.yaml;

    exports org.agentworkspace.server;
}
