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
 * fixed number of times or at a rate), added latency, and response batch-size caps that an action
 * handler may consult.
 */
public final class Faults {

    /** Means "no limit" for {@link Rule#count()}. */
    public static final long UNLIMITED = -1;

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
     */
    public record Rule(
            String api,
            Optional<String> error,
            int httpStatus,
            long count,
            double rate,
            long latencyMillis,
            OptionalInt batchSize) {

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
        }

        /** An error answered for the next {@code count} calls of {@code api}. */
        public static Rule error(String api, String code, int httpStatus, long count) {
            return new Rule(api, Optional.of(code), httpStatus, count, 1.0, 0, OptionalInt.empty());
        }

        /** Latency added to every call of {@code api}. */
        public static Rule latency(String api, long millis) {
            return new Rule(api, Optional.empty(), 0, UNLIMITED, 1.0, millis, OptionalInt.empty());
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

    public List<Rule> rules() {
        List<Rule> out = new ArrayList<>();
        rules.forEach(r -> out.add(r.rule()));
        return out;
    }

    /**
     * Applies latency and error rules to a call of {@code action}: sleeps for the added latency,
     * then throws the first injected error that hits.
     */
    public void apply(String action) throws EmulatorError {
        for (ArmedRule armed : rules) {
            Rule rule = armed.rule();
            if (!rule.matches(action) || rule.batchSize().isPresent()) {
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
        }
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
     * batchSize}.
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
                        : OptionalInt.empty());
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
