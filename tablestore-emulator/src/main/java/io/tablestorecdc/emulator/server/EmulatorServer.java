package io.tablestorecdc.emulator.server;

import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulator's HTTP front: a loopback-only HTTP/1.1 server ({@link HttpTransport}) that
 * authenticates Tablestore API calls, applies injected faults, dispatches them to {@link
 * ActionHandler}s and signs the answers the way the SDK validates them; plus unauthenticated JSON
 * admin routes under {@code /_emulator/}.
 */
public final class EmulatorServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmulatorServer.class);
    private static final String ADMIN_PREFIX = "/_emulator/";

    /**
     * How long a kept-alive connection may stay idle before the server closes it, unless the
     * builder says otherwise. Well above the longest an SDK client keeps an idle connection in its
     * pool (it closes those idle for 5 s, checking every 5 s: at most 10 s), so the server never
     * closes a connection a client is about to reuse.
     */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);

    private final String instanceName;
    private final Map<String, AccessKey> accessKeys = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> signedBy = new ConcurrentHashMap<>();
    private final Faults faults;
    private final Map<String, ActionHandler> handlers = new ConcurrentHashMap<>();
    private final Map<String, AdminHandler> adminHandlers = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
    private HttpTransport http;

    /**
     * @param instanceName the instance every request must name in {@code x-ots-instancename}
     * @param accessKeys the accepted access key ids and their secrets
     * @param faults the fault rules applied before every dispatch
     */
    public EmulatorServer(String instanceName, Map<String, String> accessKeys, Faults faults) {
        this.instanceName = instanceName;
        accessKeys.forEach((id, secret) -> acceptKey(id, secret, null));
        this.faults = faults;
        registerAdmin("faults", this::handleFaults);
        registerAdmin("credentials", this::handleCredentials);
        registerAdmin("requests", this::handleRequests);
    }

    /**
     * Accepts requests signed with this access key from now on, replacing what was accepted for
     * {@code accessKeyId} before. With an STS token, a request must also carry that token in {@code
     * x-ots-ststoken}, as temporary credentials do.
     *
     * @param stsToken the token the key requires, or {@code null} for a long-lived key
     */
    public void acceptKey(String accessKeyId, String accessKeySecret, String stsToken) {
        if (accessKeyId == null || accessKeyId.isEmpty()) {
            throw new IllegalArgumentException("The access key id must not be empty");
        }
        if (accessKeySecret == null || accessKeySecret.isEmpty()) {
            throw new IllegalArgumentException("The access key secret must not be empty");
        }
        accessKeys.put(
                accessKeyId,
                new AccessKey(
                        accessKeySecret, stsToken == null || stsToken.isEmpty() ? null : stsToken));
    }

    /** Refuses requests signed with {@code accessKeyId} from now on (OTSAuthFailed). */
    public void revokeKey(String accessKeyId) {
        accessKeys.remove(accessKeyId);
    }

    /**
     * How many requests signed with {@code accessKeyId} were accepted (authenticated) since start:
     * lets a test see that a client has moved to new credentials.
     */
    public long acceptedRequestsSignedBy(String accessKeyId) {
        LongAdder count = signedBy.get(accessKeyId);
        return count == null ? 0 : count.sum();
    }

    /** A key the server accepts: its secret and, for temporary credentials, its STS token. */
    private record AccessKey(String secret, String stsToken) {}

    /** The instance name every request must carry. */
    public String instanceName() {
        return instanceName;
    }

    /**
     * Serves {@code actionOrPrefix}: an exact action ({@code PutRow}) or, when it ends with {@code
     * /}, every action under it ({@code tunnel/}).
     */
    public void register(String actionOrPrefix, ActionHandler handler) {
        handlers.put(actionOrPrefix, handler);
    }

    /** Serves {@code /_emulator/<path>}; {@code path} may be given with or without that prefix. */
    public void registerAdmin(String path, AdminHandler handler) {
        String relative =
                path.startsWith(ADMIN_PREFIX) ? path.substring(ADMIN_PREFIX.length()) : path;
        adminHandlers.put(relative.replaceAll("^/+", ""), handler);
    }

    /**
     * How many requests for {@code action} (for example {@code tunnel/readrecords} or {@code
     * PutRow}) arrived since start, failed ones included: lets tests and benchmarks count what a
     * client asks of the server.
     */
    public long requestCount(String action) {
        LongAdder count = requests.get(action);
        return count == null ? 0 : count.sum();
    }

    public Faults faults() {
        return faults;
    }

    /**
     * How long a kept-alive connection may stay idle before the server closes it ({@link
     * #DEFAULT_IDLE_TIMEOUT} unless set); takes effect at {@link #start}.
     */
    public synchronized void idleTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("The idle timeout must be positive, got " + timeout);
        }
        this.idleTimeout = timeout;
    }

    /** Binds 127.0.0.1:{@code port} (0 = any free port) and starts serving. */
    public synchronized void start(int port) throws IOException {
        if (http != null) {
            throw new IllegalStateException("The emulator server is already started");
        }
        http =
                HttpTransport.start(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                        idleTimeout,
                        this::serve);
    }

    /** The bound port; only valid after {@link #start}. */
    public int port() {
        return started().port();
    }

    /** The client connections open now; only valid after {@link #start}. */
    public int openConnections() {
        return started().openConnections();
    }

    private synchronized HttpTransport started() {
        if (http == null) {
            throw new IllegalStateException(
                    "The emulator server is not started; call start() first");
        }
        return http;
    }

    @Override
    public synchronized void close() {
        if (http != null) {
            http.close();
            http = null;
        }
    }

    private HttpTransport.Answer serve(HttpTransport.Call call) {
        String path = call.path();
        if (path.startsWith(ADMIN_PREFIX)) {
            return serveAdmin(call, path.substring(ADMIN_PREFIX.length()));
        }
        return serveApi(call, path.startsWith("/") ? path.substring(1) : path);
    }

    private HttpTransport.Answer serveApi(HttpTransport.Call call, String action) {
        String requestId = UUID.randomUUID().toString();
        Map<String, String> headers = call.headers();
        Optional<Faults.Rule> connectionFault = Optional.empty();
        try {
            requests.computeIfAbsent(action, a -> new LongAdder()).increment();
            byte[] raw = call.body();
            String secret = authenticate(call.method(), action, headers, raw);
            byte[] body = inflateIfCompressed(headers, raw);
            connectionFault = faults.apply(action);
            if (is(connectionFault, Faults.ConnectionFault.CLOSE_BEFORE_DISPATCH)) {
                return HttpTransport.Answer.closeWithoutResponse(connectionFault.get());
            }
            byte[] response = handlerFor(action).handle(action, body);
            return signed(
                    action,
                    headers.get("x-ots-accesskeyid"),
                    secret,
                    requestId,
                    response,
                    connectionFault);
        } catch (EmulatorError e) {
            return error(requestId, e, connectionFault);
        } catch (RuntimeException e) {
            LOG.error("Internal error serving {}", action, e);
            return error(
                    requestId,
                    new EmulatorError(
                            "OTSInternalServerError", 500, "Emulator internal error: " + e),
                    connectionFault);
        }
    }

    private static boolean is(Optional<Faults.Rule> rule, Faults.ConnectionFault fault) {
        return rule.flatMap(Faults.Rule::connection).filter(f -> f == fault).isPresent();
    }

    /** Checks method, instance, body MD5 and signature; returns the caller's secret. */
    private String authenticate(
            String method, String action, Map<String, String> headers, byte[] raw)
            throws EmulatorError {
        if (!method.equals("POST")) {
            throw new EmulatorError(
                    "OTSMethodNotAllowed", 405, "Tablestore actions take POST, not " + method);
        }
        String instance = headers.getOrDefault("x-ots-instancename", "");
        if (!instance.equals(instanceName)) {
            throw authFailed(
                    "The instance '"
                            + instance
                            + "' does not exist on this emulator;"
                            + " configure the client with instance '"
                            + instanceName
                            + "'");
        }
        String keyId = headers.getOrDefault("x-ots-accesskeyid", "");
        AccessKey key = accessKeys.get(keyId);
        if (key == null) {
            throw authFailed(
                    "The access key id '"
                            + keyId
                            + "' is unknown to this emulator;"
                            + " use the access key the emulator was started with");
        }
        String secret = key.secret();
        if (key.stsToken() != null
                && !key.stsToken().equals(headers.getOrDefault("x-ots-ststoken", ""))) {
            throw authFailed(
                    "The STS token of access key id '"
                            + keyId
                            + "' is missing or not the one issued with it; use the token of these"
                            + " temporary credentials");
        }
        String md5 = headers.get("x-ots-contentmd5");
        if (md5 != null && !md5.equals(Signatures.contentMd5(raw))) {
            throw authFailed(
                    "x-ots-contentmd5 does not match the request body; resend the request");
        }
        String expected = Signatures.request(secret, action, method, headers);
        String actual = headers.getOrDefault("x-ots-signature", "");
        if (!Signatures.same(expected, actual)) {
            throw authFailed("The request signature does not match; check the access key secret");
        }
        signedBy.computeIfAbsent(keyId, k -> new LongAdder()).increment();
        return secret;
    }

    private static EmulatorError authFailed(String message) {
        return new EmulatorError("OTSAuthFailed", 403, message);
    }

    private static byte[] inflateIfCompressed(Map<String, String> headers, byte[] raw)
            throws EmulatorError {
        String type = headers.get("x-ots-request-compress-type");
        if (type == null) {
            return raw;
        }
        if (!type.equalsIgnoreCase("deflate")) {
            throw EmulatorError.parameterInvalid(
                    "Unsupported x-ots-request-compress-type '" + type + "'; use deflate");
        }
        Inflater inflater = new Inflater();
        try {
            inflater.setInput(raw);
            ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length * 4);
            byte[] buffer = new byte[8192];
            while (!inflater.finished()) {
                int n = inflater.inflate(buffer);
                if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw EmulatorError.parameterInvalid("The deflated request body is truncated");
                }
                out.write(buffer, 0, n);
            }
            return out.toByteArray();
        } catch (DataFormatException e) {
            throw EmulatorError.parameterInvalid("The request body is not valid deflate data");
        } finally {
            inflater.end();
        }
    }

    private ActionHandler handlerFor(String action) throws EmulatorError {
        ActionHandler exact = handlers.get(action);
        if (exact != null) {
            return exact;
        }
        String bestPrefix = null;
        for (String key : handlers.keySet()) {
            if (key.endsWith("/")
                    && action.startsWith(key)
                    && (bestPrefix == null || key.length() > bestPrefix.length())) {
                bestPrefix = key;
            }
        }
        if (bestPrefix == null) {
            throw new EmulatorError(
                    "OTSUnsupportOperation",
                    400,
                    "The emulator does not serve the action '" + action + "'");
        }
        return handlers.get(bestPrefix);
    }

    private static HttpTransport.Answer signed(
            String action,
            String keyId,
            String secret,
            String requestId,
            byte[] body,
            Optional<Faults.Rule> connectionFault) {
        Map<String, String> otsHeaders = new LinkedHashMap<>();
        otsHeaders.put("x-ots-contentmd5", Signatures.contentMd5(body));
        otsHeaders.put("x-ots-contenttype", "protocol buffer");
        otsHeaders.put("x-ots-requestid", requestId);
        otsHeaders.put("x-ots-date", java.time.Instant.now().toString());
        Map<String, String> out = new LinkedHashMap<>(otsHeaders);
        out.put(
                "Authorization",
                "OTS " + keyId + ":" + Signatures.response(secret, action, otsHeaders));
        return answer(200, out, body, connectionFault);
    }

    private static HttpTransport.Answer error(
            String requestId, EmulatorError error, Optional<Faults.Rule> connectionFault) {
        OtsInternalApi.Error.Builder pb = OtsInternalApi.Error.newBuilder().setCode(error.code());
        Optional.ofNullable(error.getMessage()).ifPresent(pb::setMessage);
        return answer(
                error.httpStatus(),
                Map.of("x-ots-requestid", requestId),
                pb.build().toByteArray(),
                connectionFault);
    }

    private static HttpTransport.Answer answer(
            int status,
            Map<String, String> headers,
            byte[] body,
            Optional<Faults.Rule> connectionFault) {
        if (is(connectionFault, Faults.ConnectionFault.CLOSE_BEFORE_ANSWER)) {
            return HttpTransport.Answer.closeWithoutResponse(connectionFault.get());
        }
        return new HttpTransport.Answer(status, headers, body, connectionFault);
    }

    private HttpTransport.Answer serveAdmin(HttpTransport.Call call, String route) {
        AdminHandler handler = adminHandlers.get(route);
        try {
            if (handler == null) {
                throw new EmulatorError(
                        "OTSObjectNotExist",
                        404,
                        "No admin route /_emulator/"
                                + route
                                + "; routes: "
                                + adminHandlers.keySet());
            }
            String json =
                    handler.handle(
                            call.method().toUpperCase(java.util.Locale.ROOT),
                            new String(call.body(), StandardCharsets.UTF_8),
                            query(call.rawQuery()));
            return adminJson(200, json);
        } catch (EmulatorError e) {
            return adminError(e.httpStatus(), e.code(), e.getMessage());
        } catch (IllegalArgumentException | ClassCastException e) {
            return adminError(400, "OTSParameterInvalid", String.valueOf(e.getMessage()));
        }
    }

    private static HttpTransport.Answer adminJson(int status, String json) {
        return new HttpTransport.Answer(
                status,
                Map.of("Content-Type", "application/json"),
                json.getBytes(StandardCharsets.UTF_8));
    }

    private static HttpTransport.Answer adminError(int status, String code, String message) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("error", code);
        json.put("message", message);
        return adminJson(status, Json.write(json));
    }

    private String handleCredentials(String method, String body, Map<String, String> query)
            throws EmulatorError {
        switch (method) {
            case "POST":
                Map<String, Object> key = Json.parseObject(body);
                Object id = key.get("accessKeyId");
                Object secret = key.get("accessKeySecret");
                Object token = key.get("stsToken");
                if (!(id instanceof String) || !(secret instanceof String)) {
                    throw EmulatorError.parameterInvalid(
                            "/_emulator/credentials takes {\"accessKeyId\": ..., \"accessKeySecret\":"
                                    + " ..., \"stsToken\": ... (optional)}");
                }
                acceptKey((String) id, (String) secret, token instanceof String t ? t : null);
                return "{\"ok\":true}";
            case "DELETE":
                String revoked = query.get("accessKeyId");
                if (revoked == null) {
                    throw EmulatorError.parameterInvalid(
                            "/_emulator/credentials DELETE takes ?accessKeyId=<id>");
                }
                revokeKey(revoked);
                return "{\"ok\":true}";
            case "GET":
                return Json.write(accessKeys.keySet().stream().sorted().toList());
            default:
                throw new EmulatorError(
                        "OTSMethodNotAllowed",
                        405,
                        "/_emulator/credentials takes POST (accept a key), DELETE (revoke) or GET"
                                + " (list the accepted ids)");
        }
    }

    /** {@code GET requests}: every action's {@link #requestCount} since start, by action. */
    private String handleRequests(String method, String body, Map<String, String> query) {
        if (!method.equals("GET")) {
            throw new IllegalArgumentException("/_emulator/requests takes GET, not " + method);
        }
        Map<String, Object> counts = new java.util.TreeMap<>();
        requests.forEach((action, count) -> counts.put(action, count.sum()));
        return Json.write(Map.of("requests", counts));
    }

    private String handleFaults(String method, String body, Map<String, String> query)
            throws EmulatorError {
        switch (method) {
            case "POST":
                faults.add(Faults.ruleFromJson(Json.parseObject(body)));
                return "{\"ok\":true}";
            case "DELETE":
                faults.clear();
                return "{\"ok\":true}";
            case "GET":
                return Json.write(faults.rules().stream().map(Faults.Rule::toJson).toList());
            default:
                throw new EmulatorError(
                        "OTSMethodNotAllowed",
                        405,
                        "/_emulator/faults takes POST (add), DELETE (clear) or GET (list)");
        }
    }

    private static Map<String, String> query(String rawQuery) {
        Map<String, String> out = new HashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return out;
        }
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            out.putIfAbsent(decode(key), decode(value));
        }
        return out;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
