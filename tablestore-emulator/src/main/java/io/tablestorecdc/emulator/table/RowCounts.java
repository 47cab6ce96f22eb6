package io.tablestorecdc.emulator.table;

import com.alicloud.openservices.tablestore.model.PrimaryKey;
import com.alicloud.openservices.tablestore.model.PrimaryKeyBuilder;
import com.alicloud.openservices.tablestore.model.PrimaryKeySchema;
import com.alicloud.openservices.tablestore.model.PrimaryKeyValue;
import com.alicloud.openservices.tablestore.model.StreamRecord;
import com.alicloud.openservices.tablestore.model.TableMeta;
import io.tablestorecdc.emulator.server.EmulatorServer;
import io.tablestorecdc.emulator.server.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the rows written and deleted per table since start, and serves them with the table's
 * current row count as {@code GET /_emulator/rows?table=T}: what a benchmark of a consumer in
 * another process reads to know how many meta rows it wrote, deleted and kept. The counts are
 * cheap; the row count scans the table, so {@code &live=false} leaves it out.
 */
public final class RowCounts implements TableAccess.TableListener {

    private final TableAccess tables;
    private final Map<String, Counts> byTable = new ConcurrentHashMap<>();

    private record Counts(LongAdder written, LongAdder deleted) {
        Counts() {
            this(new LongAdder(), new LongAdder());
        }
    }

    private RowCounts(TableAccess tables) {
        this.tables = tables;
    }

    /** Counts the writes of {@code tables} and serves route {@code rows} on {@code server}. */
    public static RowCounts install(TableAccess tables, EmulatorServer server) {
        RowCounts counts = new RowCounts(tables);
        tables.addListener(counts);
        server.registerAdmin(
                "rows",
                (method, body, query) -> {
                    if (!method.equals("GET")) {
                        throw new IllegalArgumentException(
                                "/_emulator/rows takes GET ?table=T, not " + method);
                    }
                    String table = query.get("table");
                    if (table == null || table.isEmpty()) {
                        throw new IllegalArgumentException(
                                "Name the table: /_emulator/rows?table=T");
                    }
                    String live = query.getOrDefault("live", "true");
                    if (!live.equals("true") && !live.equals("false")) {
                        throw new IllegalArgumentException(
                                "/_emulator/rows takes live=true or live=false, not " + live);
                    }
                    return Json.write(counts.of(table, live.equals("true")));
                });
        return counts;
    }

    /**
     * {@code table}'s counts: {@code written} (puts and updates applied since start), {@code
     * deleted} (row deletes applied), {@code rows} (rows it holds now; 0 when it does not exist).
     */
    public Map<String, Object> of(String table) {
        return of(table, true);
    }

    /** As {@link #of(String)}, without the scan for {@code rows} unless {@code withLiveRows}. */
    public Map<String, Object> of(String table, boolean withLiveRows) {
        Counts c = byTable.getOrDefault(table, new Counts());
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("table", table);
        json.put("written", c.written().sum());
        json.put("deleted", c.deleted().sum());
        if (withLiveRows) {
            json.put("rows", (long) liveRows(table));
        }
        return json;
    }

    private int liveRows(String table) {
        return tables.tableMeta(table)
                .map(meta -> tables.snapshot(table, bound(meta, true), bound(meta, false)).size())
                .orElse(0);
    }

    private static PrimaryKey bound(TableMeta meta, boolean min) {
        PrimaryKeyBuilder key = PrimaryKeyBuilder.createPrimaryKeyBuilder();
        for (PrimaryKeySchema column : meta.getPrimaryKeyList()) {
            key.addPrimaryKeyColumn(
                    column.getName(), min ? PrimaryKeyValue.INF_MIN : PrimaryKeyValue.INF_MAX);
        }
        return key.build();
    }

    @Override
    public void onTableCreated(TableMeta meta) {}

    @Override
    public void onTableDeleted(String table) {
        byTable.remove(table);
    }

    @Override
    public void onRowChange(RowChange change) {
        Counts c = byTable.computeIfAbsent(change.table(), t -> new Counts());
        if (change.type() == StreamRecord.RecordType.DELETE) {
            c.deleted().increment();
        } else {
            c.written().increment();
        }
    }
}
