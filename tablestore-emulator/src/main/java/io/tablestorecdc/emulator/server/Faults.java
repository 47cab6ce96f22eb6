package io.tablestorecdc.emulator.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Injected faults, checked by the server before an action is dispatched: errors per API action (a
 * fixed number of times or at a rate), added latency, connection faults (see {@link
 * ConnectionFault}), and response batch-size caps that an action handler may consult.
 */
public final class Faults {

    /** Means "no limit" for {@link Rule#count()}. */
    public static final long UNLIMITED = -1;

    /**
     * What a connection fault does to the connection that carries a hit call. Every one of them
     * happens to a real client sooner or later (a server restarting, a load balancer dropping a
     * connection, a network reset); they let tests give a client exactly that, on purpose.
     */
    public enum ConnectionFault {
        /**
         * The connection is closed before the action runs: the request is not applied and the
         * client sees its connection end without a response.
         */
        CLOSE_BEFORE_DISPATCH("close-before-dispatch"),
        /**
         * The action runs (a write is applied), then the connection is closed without a response:
         * the client cannot tell whether its request took effect.
         */
        CLOSE_BEFORE_ANSWER("close-before-answer"),
        /**
         * The action runs, the status line, the headers and half of the body are sent, then the
         * connection is reset (TCP RST).
         */
        RESET_MID_RESPONSE("reset-mid-response"),
        /**
         * The answer is sent normally, without {@code Connection: close}, and from then on the
         * connection is closed once it has been idle for {@link Rule#idleMillis()} (0: as soon as
         * the response is written) instead of after the server's idle timeout: a server that closes
         * kept-alive connections earlier than its clients expect.
         */
        CLOSE_WHEN_IDLE("close-when-idle");

        private final String json;

        ConnectionFault(String json) {
            this.json = json;
        }

        /** The name in the admin JSON ({@code "connection": "reset-mid-response"}). */
        public String json() {
            return json;
        }

        static ConnectionFault fromJson(String name) {
            for (ConnectionFault fault : values()) {
                if (fault.json.equals(name)) {
                    return fault;
                }
            }
            throw new IllegalArgumentException(
                    "Unknown \"connection\" fault '"
                            + name
                            + "'; use one of "
                            + java.util.Arrays.stream(values()).map(f -> f.json).toList());
        }
    }

    private final List<ArmedRule> rules = new CopyOnWriteArrayList<>();

    /**
     * One fault.
     *
     * @param api the action it applies to ({@code PutRow}, {@code tunnel/readrecords}) or {@code *}
     *     for every action
     * @param error the error code to answer with; empty for a latency- or batch-size-only rule
     * @param httpStatus the HTTP status of the error
     * @param count how many matching calls it applies to, or {@link #UNLIMITED}
     * @param rate the probability (0..1] that a matching call is hit
     * @param latencyMillis delay added to each hit call
     * @param batchSize a cap on the number of items a hit response may carry
     * @param connection what happens to the connection of a hit call, if anything
     * @param idleMillis for {@link ConnectionFault#CLOSE_WHEN_IDLE}: the idle time after which the
     *     connection is closed
     */
    public record Rule(
            String api,
            Optional<String> error,
            int httpStatus,
            long count,
            double rate,
            long latencyMillis,
            OptionalInt batchSize,
            Optional<ConnectionFault> connection,
            long idleMillis) {

        public Rule {
            if (api == null || api.isEmpty()) {
                throw new IllegalArgumentException(
                        "A fault needs an \"api\", e.g. \"PutRow\" or \"*\"");
            }
            if (rate <= 0 || rate > 1) {
                throw new IllegalArgumentException(
                        "A fault's \"rate\" must be in (0, 1], got " + rate);
            }
            if (count == 0 || count < UNLIMITED) {
                throw new IllegalArgumentException(
                        "A fault's \"count\" must be positive (or absent for no limit), got "
                                + count);
            }
            if (connection.isPresent() && (error.isPresent() || batchSize.isPresent())) {
                throw new IllegalArgumentException(
                        "A fault has either a \"connection\" fault or an \"error\" or a"
                                + " \"batchSize\", not both; add two rules");
            }
            if (idleMillis < 0) {
                throw new IllegalArgumentException(
                        "A fault's \"idleMs\" must be 0 or more, got " + idleMillis);
            }
        }

        /** A rule without a connection fault. */
        public Rule(
                String api,
                Optional<String> error,
                int httpStatus,
                long count,
                double rate,
                long latencyMillis,
                OptionalInt batchSize) {
            this(
                    api,
                    error,
                    httpStatus,
                    count,
                    rate,
                    latencyMillis,
                    batchSize,
                    Optional.empty(),
                    0);
        }

        /** An error answered for the next {@code count} calls of {@code api}. */
        public static Rule error(String api, String code, int httpStatus, long count) {
            return new Rule(api, Optional.of(code), httpStatus, count, 1.0, 0, OptionalInt.empty());
        }

        /** Latency added to every call of {@code api}. */
        public static Rule latency(String api, long millis) {
            return new Rule(api, Optional.empty(), 0, UNLIMITED, 1.0, millis, OptionalInt.empty());
        }

        /** {@code fault} done to the connections of the next {@code count} calls of {@code api}. */
        public static Rule connection(String api, ConnectionFault fault, long count) {
            return connection(api, fault, 0, count);
        }

        /**
         * After each of the next {@code count} calls of {@code api}, its connection is closed once
         * idle for {@code idleMillis}.
         */
        public static Rule closeWhenIdle(String api, long idleMillis, long count) {
            return connection(api, ConnectionFault.CLOSE_WHEN_IDLE, idleMillis, count);
        }

        private static Rule connection(
                String api, ConnectionFault fault, long idleMillis, long count) {
            return new Rule(
                    api,
                    Optional.empty(),
                    0,
                    count,
                    1.0,
                    0,
                    OptionalInt.empty(),
                    Optional.of(fault),
                    idleMillis);
        }

        /** The rule in its admin JSON form (the inverse of {@link Faults#ruleFromJson}). */
        public Map<String, Object> toJson() {
            Map<String, Object> json = new java.util.LinkedHashMap<>();
            json.put("api", api);
            error.ifPresent(e -> json.put("error", e));
            error.ifPresent(e -> json.put("status", (long) httpStatus));
            if (count != UNLIMITED) {
                json.put("count", count);
            }
            json.put("rate", rate);
            json.put("latencyMs", latencyMillis);
            batchSize.ifPresent(b -> json.put("batchSize", (long) b));
            connection.ifPresent(c -> json.put("connection", c.json()));
            connection
                    .filter(c -> c == ConnectionFault.CLOSE_WHEN_IDLE)
                    .ifPresent(c -> json.put("idleMs", idleMillis));
            return json;
        }

        boolean matches(String action) {
            return api.equals("*") || api.equals(action);
        }
    }

    private record ArmedRule(Rule rule, AtomicLong remaining) {

        /** Consumes one use when the call is hit; false when exhausted or the dice say no. */
        boolean tryHit() {
            if (rule.rate() < 1.0 && ThreadLocalRandom.current().nextDouble() >= rule.rate()) {
                return false;
            }
            if (rule.count() == UNLIMITED) {
                return true;
            }
            return remaining.getAndUpdate(n -> n > 0 ? n - 1 : 0) > 0;
        }
    }

    public void add(Rule rule) {
        rules.add(new ArmedRule(rule, new AtomicLong(rule.count())));
    }

    public void clear() {
        rules.clear();
    }

    /** Whether every rule with a count has used it up (a test's proof its faults happened). */
    public boolean exhausted() {
        return rules.stream()
                .allMatch(r -> r.rule().count() == UNLIMITED || r.remaining().get() == 0);
    }

    public List<Rule> rules() {
        List<Rule> out = new ArrayList<>();
        rules.forEach(r -> out.add(r.rule()));
        return out;
    }

    /**
     * Applies latency, error and connection rules to a call of {@code action}: sleeps for the added
     * latency, throws the first injected error that hits, and returns the first connection rule
     * that hits (the transport carries it out).
     */
    public Optional<Rule> apply(String action) throws EmulatorError {
        Optional<Rule> connection = Optional.empty();
        for (ArmedRule armed : rules) {
            Rule rule = armed.rule();
            if (!rule.matches(action) || rule.batchSize().isPresent()) {
                continue;
            }
            if (rule.connection().isPresent() && connection.isPresent()) {
                // One connection fault per call; a later rule keeps its uses for later calls.
                continue;
            }
            if (!armed.tryHit()) {
                continue;
            }
            sleep(rule.latencyMillis());
            if (rule.error().isPresent()) {
                throw new EmulatorError(
                        rule.error().get(), rule.httpStatus(), "Injected fault for " + action);
            }
            if (rule.connection().isPresent()) {
                connection = Optional.of(rule);
            }
        }
        return connection;
    }

    /** The batch-size cap injected for {@code action}, if a batch-size rule hits this call. */
    public OptionalInt batchSize(String action) {
        for (ArmedRule armed : rules) {
            Rule rule = armed.rule();
            if (rule.matches(action) && rule.batchSize().isPresent() && armed.tryHit()) {
                return rule.batchSize();
            }
        }
        return OptionalInt.empty();
    }

    /**
     * Reads a rule from its admin JSON form: {@code {"api":"PutRow","error":"OTSServerBusy",
     * "status":503,"count":3}}, optionally with {@code rate}, {@code latencyMs} and {@code
     * batchSize}; or a connection fault: {@code {"api":"PutRow","connection":"close-before-answer",
     * "count":1}} ({@code "idleMs"} with {@code "close-when-idle"}).
     */
    public static Rule ruleFromJson(Map<String, Object> json) {
        Optional<String> error = Optional.ofNullable((String) json.get("error"));
        long defaultStatus = error.isPresent() ? 503 : 0;
        return new Rule(
                (String) json.get("api"),
                error,
                (int) number(json, "status", defaultStatus),
                number(json, "count", UNLIMITED),
                json.containsKey("rate") ? ((Number) json.get("rate")).doubleValue() : 1.0,
                number(json, "latencyMs", 0),
                json.containsKey("batchSize")
                        ? OptionalInt.of((int) number(json, "batchSize", 0))
                        : OptionalInt.empty(),
                Optional.ofNullable((String) json.get("connection")).map(ConnectionFault::fromJson),
                number(json, "idleMs", 0));
    }

    private static long number(Map<String, Object> json, String key, long fallback) {
        Object value = json.get(key);
        if (value == null) {
            return fallback;
        }
        if (!(value instanceof Number n)) {
            throw new IllegalArgumentException(
                    "Fault field \"" + key + "\" must be a number, got " + value);
        }
        return n.longValue();
    }

    private static void sleep(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
