package io.tablestorecdc.emulator.server;

import com.alicloud.openservices.tablestore.core.protocol.OtsInternalApi;
import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulator's HTTP front: a loopback-only JDK HTTP server that authenticates Tablestore API
 * calls, applies injected faults, dispatches them to {@link ActionHandler}s and signs the answers
 * the way the SDK validates them; plus unauthenticated JSON admin routes under {@code /_emulator/}.
 */
public final class EmulatorServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmulatorServer.class);
    private static final String ADMIN_PREFIX = "/_emulator/";

    /**
     * The JDK's HTTP server leaves Nagle's algorithm on unless this property is set before its
     * first use: every small response then waits for the client's delayed ACK (~40 ms on loopback),
     * which would make each GetRow, PutRow or getCheckpoint cost 40 ms, unlike any real endpoint. A
     * value the user set on the command line wins.
     */
    static final String NODELAY_PROPERTY = "sun.net.httpserver.nodelay";

    /**
     * The JDK's HTTP server keeps at most this many idle keep-alive connections (200 by default)
     * and closes any connection it answers while that many are idle, right after the response.
     * Clients pool their connections (one SDK client keeps up to 300): once a burst of concurrent
     * calls leaves 200 idle, the next call on a pooled connection closes it, and the client's
     * following request on it races the close and fails with "Connection closed" before any
     * response, which the SDK does not retry for writes. Idle connections are still closed after
     * {@code sun.net.httpserver.idleInterval} (30 s); SDK clients drop theirs after 5 to 10 s.
     */
    static final String MAX_IDLE_CONNECTIONS_PROPERTY = "sun.net.httpserver.maxIdleConnections";

    static {
        // The JDK reads both once, when the JVM's first HTTP server is created; a value the user
        // set on the command line wins.
        setIfAbsent(NODELAY_PROPERTY, "true");
        setIfAbsent(MAX_IDLE_CONNECTIONS_PROPERTY, String.valueOf(Integer.MAX_VALUE));
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }

    private final String instanceName;
    private final Map<String, String> accessKeys;
    private final Faults faults;
    private final Map<String, ActionHandler> handlers = new ConcurrentHashMap<>();
    private final Map<String, AdminHandler> adminHandlers = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final AtomicInteger threadCounter = new AtomicInteger();
    private HttpServer http;
    private ExecutorService executor;

    /**
     * @param instanceName the instance every request must name in {@code x-ots-instancename}
     * @param accessKeys the accepted access key ids and their secrets
     * @param faults the fault rules applied before every dispatch
     */
    public EmulatorServer(String instanceName, Map<String, String> accessKeys, Faults faults) {
        this.instanceName = instanceName;
        this.accessKeys = Map.copyOf(accessKeys);
        this.faults = faults;
        registerAdmin("faults", this::handleFaults);
    }

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

    /** Binds 127.0.0.1:{@code port} (0 = any free port) and starts serving. */
    public synchronized void start(int port) throws IOException {
        if (http != null) {
            throw new IllegalStateException("The emulator server is already started");
        }
        http =
                HttpServer.create(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 128);
        executor = Executors.newCachedThreadPool(this::newThread);
        http.setExecutor(executor);
        http.createContext("/", this::serve);
        http.start();
    }

    /** The bound port; only valid after {@link #start}. */
    public int port() {
        if (http == null) {
            throw new IllegalStateException(
                    "The emulator server is not started; call start() first");
        }
        return http.getAddress().getPort();
    }

    @Override
    public synchronized void close() {
        if (http != null) {
            http.stop(0);
            executor.shutdownNow();
            http = null;
        }
    }

    private Thread newThread(Runnable r) {
        Thread t = new Thread(r, "tablestore-emulator-http-" + threadCounter.incrementAndGet());
        t.setDaemon(true);
        return t;
    }

    private void serve(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (path.startsWith(ADMIN_PREFIX)) {
                serveAdmin(exchange, path.substring(ADMIN_PREFIX.length()));
            } else {
                serveApi(exchange, path.substring(1));
            }
        } catch (IOException e) {
            // The connection went away mid-exchange (a client gave up, or the emulator is closing):
            // the client sees its own connection error; nothing here is wrong.
            LOG.debug("Could not answer {}: {}", exchange.getRequestURI(), e.toString());
        } catch (RuntimeException e) {
            LOG.warn("Failed to serve {}", exchange.getRequestURI(), e);
        }
    }

    private void serveApi(HttpExchange exchange, String action) throws IOException {
        String requestId = UUID.randomUUID().toString();
        Map<String, String> headers = lowerCaseHeaders(exchange.getRequestHeaders());
        try {
            requests.computeIfAbsent(action, a -> new LongAdder()).increment();
            byte[] raw = exchange.getRequestBody().readAllBytes();
            String secret = authenticate(exchange.getRequestMethod(), action, headers, raw);
            byte[] body = inflateIfCompressed(headers, raw);
            faults.apply(action);
            byte[] response = handlerFor(action).handle(action, body);
            sendSigned(
                    exchange,
                    action,
                    headers.get("x-ots-accesskeyid"),
                    secret,
                    requestId,
                    response);
        } catch (EmulatorError e) {
            sendError(exchange, requestId, e);
        } catch (RuntimeException e) {
            LOG.error("Internal error serving {}", action, e);
            sendError(
                    exchange,
                    requestId,
                    new EmulatorError(
                            "OTSInternalServerError", 500, "Emulator internal error: " + e));
        }
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
        String secret = accessKeys.get(keyId);
        if (secret == null) {
            throw authFailed(
                    "The access key id '"
                            + keyId
                            + "' is unknown to this emulator;"
                            + " use the access key the emulator was started with");
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

    private void sendSigned(
            HttpExchange exchange,
            String action,
            String keyId,
            String secret,
            String requestId,
            byte[] body)
            throws IOException {
        Map<String, String> otsHeaders = new LinkedHashMap<>();
        otsHeaders.put("x-ots-contentmd5", Signatures.contentMd5(body));
        otsHeaders.put("x-ots-contenttype", "protocol buffer");
        otsHeaders.put("x-ots-requestid", requestId);
        otsHeaders.put("x-ots-date", java.time.Instant.now().toString());
        Headers out = exchange.getResponseHeaders();
        otsHeaders.forEach(out::set);
        out.set(
                "Authorization",
                "OTS " + keyId + ":" + Signatures.response(secret, action, otsHeaders));
        send(exchange, 200, body);
    }

    private static void sendError(HttpExchange exchange, String requestId, EmulatorError error)
            throws IOException {
        OtsInternalApi.Error.Builder pb = OtsInternalApi.Error.newBuilder().setCode(error.code());
        Optional.ofNullable(error.getMessage()).ifPresent(pb::setMessage);
        exchange.getResponseHeaders().set("x-ots-requestid", requestId);
        send(exchange, error.httpStatus(), pb.build().toByteArray());
    }

    private static void send(HttpExchange exchange, int status, byte[] body) throws IOException {
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream os = exchange.getResponseBody()) {
                os.write(body);
            }
        }
    }

    private void serveAdmin(HttpExchange exchange, String route) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
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
            String body = readText(exchange.getRequestBody());
            String json =
                    handler.handle(
                            exchange.getRequestMethod().toUpperCase(java.util.Locale.ROOT),
                            body,
                            query(exchange.getRequestURI().getRawQuery()));
            send(exchange, 200, json.getBytes(StandardCharsets.UTF_8));
        } catch (EmulatorError e) {
            sendAdminError(exchange, e.httpStatus(), e.code(), e.getMessage());
        } catch (IllegalArgumentException | ClassCastException e) {
            sendAdminError(exchange, 400, "OTSParameterInvalid", String.valueOf(e.getMessage()));
        }
    }

    private static void sendAdminError(
            HttpExchange exchange, int status, String code, String message) throws IOException {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("error", code);
        json.put("message", message);
        send(exchange, status, Json.write(json).getBytes(StandardCharsets.UTF_8));
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

    private static String readText(InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
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

    private static Map<String, String> lowerCaseHeaders(Headers headers) {
        Map<String, String> out = new HashMap<>();
        for (Map.Entry<String, List<String>> e : headers.entrySet()) {
            if (!e.getValue().isEmpty()) {
                out.put(e.getKey().toLowerCase(java.util.Locale.ROOT), e.getValue().get(0));
            }
        }
        return out;
    }
}
