package io.tablestorecdc.emulator;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A loopback stand-in for the ECS instance metadata service of one RAM role: it issues temporary
 * credentials (access key id, secret, STS token, expiration) that {@link TablestoreEmulator}
 * accepts, and issues new ones on {@link #rotate()}, so that tests can prove a running job follows
 * rotating credentials.
 *
 * <p>Serves {@code GET /latest/meta-data/ram/security-credentials/} (the role name) and {@code GET
 * /latest/meta-data/ram/security-credentials/<role>} (the credentials, as the service words them).
 * Every answer's {@code Expiration} is the time of the answer plus the validity given at start.
 */
public final class InstanceMetadataStub implements AutoCloseable {

    private static final String PATH = "/latest/meta-data/ram/security-credentials/";

    private final TablestoreEmulator emulator;
    private final String roleName;
    private final Duration validity;
    private final HttpServer server;
    private final AtomicInteger generation = new AtomicInteger();
    private final AtomicReference<Issued> current = new AtomicReference<>();
    private final Map<String, Instant> lastExpirationServed = new ConcurrentHashMap<>();
    private final AtomicInteger credentialRequests = new AtomicInteger();

    /** Credentials issued for the role. */
    public record Issued(String accessKeyId, String accessKeySecret, String securityToken) {
        @Override
        public String toString() {
            return "Issued{accessKeyId=" + accessKeyId + ", accessKeySecret=******}";
        }
    }

    private InstanceMetadataStub(TablestoreEmulator emulator, String roleName, Duration validity) {
        this.emulator = emulator;
        this.roleName = roleName;
        this.validity = validity;
        try {
            server =
                    HttpServer.create(
                            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot bind a loopback port for the metadata stub", e);
        }
        server.createContext("/", this::serve);
        rotate();
        server.start();
    }

    /**
     * Starts serving {@code roleName}'s credentials for {@code emulator}.
     *
     * @param validity how long each answer's credentials are valid (its {@code Expiration})
     */
    public static InstanceMetadataStub start(
            TablestoreEmulator emulator, String roleName, Duration validity) {
        return new InstanceMetadataStub(emulator, roleName, validity);
    }

    /** {@code http://127.0.0.1:PORT}, the value of {@code credentials.ecs.metadata.endpoint}. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public String roleName() {
        return roleName;
    }

    /** The credentials served now. */
    public Issued current() {
        return current.get();
    }

    /**
     * Issues new credentials, accepted by the emulator from now on and served from now on; the
     * previous ones stay accepted until a test revokes them with {@link #revoke}.
     *
     * @return the previous credentials, or {@code null} on the first call
     */
    public Issued rotate() {
        int n = generation.incrementAndGet();
        String suffix = n + "-" + UUID.randomUUID().toString().substring(0, 8);
        Issued issued =
                new Issued(
                        "STS.role-key-" + suffix, "role-secret-" + suffix, "role-token-" + suffix);
        emulator.acceptKey(issued.accessKeyId(), issued.accessKeySecret(), issued.securityToken());
        return current.getAndSet(issued);
    }

    /** The emulator refuses {@code issued} from now on. */
    public void revoke(Issued issued) {
        emulator.revokeKey(issued.accessKeyId());
    }

    /** The latest {@code Expiration} served with {@code issued}; {@link Instant#MIN} if never. */
    public Instant lastExpirationServed(Issued issued) {
        return lastExpirationServed.getOrDefault(issued.accessKeyId(), Instant.MIN);
    }

    /** How many times credentials were asked for. */
    public int credentialRequests() {
        return credentialRequests.get();
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (!exchange.getRequestMethod().equals("GET")) {
                answer(exchange, 405, "GET only");
            } else if (path.equals(PATH)) {
                answer(exchange, 200, roleName);
            } else if (path.equals(PATH + roleName)) {
                credentialRequests.incrementAndGet();
                Issued issued = current.get();
                Instant expiration = Instant.now().plus(validity).truncatedTo(ChronoUnit.SECONDS);
                lastExpirationServed.merge(
                        issued.accessKeyId(), expiration, (a, b) -> a.isAfter(b) ? a : b);
                answer(
                        exchange,
                        200,
                        "{\n  \"AccessKeyId\" : \""
                                + issued.accessKeyId()
                                + "\",\n  \"AccessKeySecret\" : \""
                                + issued.accessKeySecret()
                                + "\",\n  \"Expiration\" : \""
                                + expiration
                                + "\",\n  \"SecurityToken\" : \""
                                + issued.securityToken()
                                + "\",\n  \"LastUpdated\" : \""
                                + Instant.now().truncatedTo(ChronoUnit.SECONDS)
                                + "\",\n  \"Code\" : \"Success\"\n}");
            } else {
                answer(exchange, 404, "Not Found");
            }
        }
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    @Override
    public String toString() {
        return "InstanceMetadataStub{role=" + roleName + ", endpoint=" + endpoint() + "}";
    }
}
