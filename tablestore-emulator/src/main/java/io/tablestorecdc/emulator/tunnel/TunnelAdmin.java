package io.tablestorecdc.emulator.tunnel;

import io.tablestorecdc.emulator.server.AdminHandler;
import io.tablestorecdc.emulator.server.EmulatorError;
import io.tablestorecdc.emulator.server.EmulatorServer;
import io.tablestorecdc.emulator.server.Json;
import java.util.List;
import java.util.Map;

/**
 * The tunnel service's admin routes: {@code GET partitions?table=T}, {@code POST split} and {@code
 * POST merge} with {@code {"table":T,"at":{PK}}}, {@code POST clients/expire} and {@code POST
 * tunnels/expire} with {@code {"tunnel":id-or-name}}.
 */
final class TunnelAdmin {

    private final TunnelService service;

    TunnelAdmin(TunnelService service) {
        this.service = service;
    }

    void registerWith(EmulatorServer server) {
        server.registerAdmin("partitions", guarded("GET", this::partitions));
        server.registerAdmin("split", guarded("POST", this::split));
        server.registerAdmin("merge", guarded("POST", this::merge));
        server.registerAdmin("clients/expire", guarded("POST", this::expireClients));
        server.registerAdmin("tunnels/expire", guarded("POST", this::expireTunnel));
    }

    private String partitions(String body, Map<String, String> query) {
        String table = query.get("table");
        if (table == null || table.isEmpty()) {
            throw new IllegalArgumentException("Name the table: /_emulator/partitions?table=T");
        }
        return service.partitionsJson(table);
    }

    private String split(String body, Map<String, String> query) {
        Map<String, Object> json = Json.parseObject(body);
        String table = text(json, "table");
        return Json.write(service.split(table, service.keyFromJson(table, key(json))));
    }

    private String merge(String body, Map<String, String> query) {
        Map<String, Object> json = Json.parseObject(body);
        String table = text(json, "table");
        return Json.write(List.of(service.merge(table, service.keyFromJson(table, key(json)))));
    }

    private String expireClients(String body, Map<String, String> query) {
        int expired = service.expireClients(text(Json.parseObject(body), "tunnel"));
        return Json.write(Map.of("expired", expired));
    }

    private String expireTunnel(String body, Map<String, String> query) {
        service.expireTunnel(text(Json.parseObject(body), "tunnel"));
        return Json.write(Map.of());
    }

    private static String text(Map<String, Object> json, String field) {
        Object value = json.get(field);
        if (!(value instanceof String s) || s.isEmpty()) {
            throw new IllegalArgumentException("The body needs a string \"" + field + "\"");
        }
        return s;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> key(Map<String, Object> json) {
        Object at = json.get("at");
        if (!(at instanceof Map)) {
            throw new IllegalArgumentException(
                    "The body needs \"at\": a primary key object such as {\"id\":\"k5\"}");
        }
        return (Map<String, Object>) at;
    }

    private interface Route {
        String serve(String body, Map<String, String> query);
    }

    /** Checks the method and turns bad input into OTSParameterInvalid answers. */
    private static AdminHandler guarded(String method, Route route) {
        return (httpMethod, body, query) -> {
            if (!method.equals(httpMethod)) {
                throw EmulatorError.parameterInvalid("Use " + method + " for this route");
            }
            try {
                return route.serve(body, query);
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw EmulatorError.parameterInvalid(e.getMessage());
            }
        };
    }
}
