package io.tablestorecdc.flink.source.testing;

import io.tablestorecdc.checkpoint.meta.MetaRow;
import io.tablestorecdc.checkpoint.meta.MetaRowKey;
import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.meta.MetaValue;
import io.tablestorecdc.checkpoint.meta.PutOutcome;
import io.tablestorecdc.checkpoint.meta.RangePage;
import io.tablestorecdc.flink.source.MetaTableClientFactory;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An in-memory meta table that honours the conditional writes of the real one (put-if-absent,
 * column compare-and-set), shared by every client a test's enumerators open. Tables are found by
 * name, so that the serializable factory can travel with the source.
 */
public final class InMemoryMetaTable {

    private static final Map<String, InMemoryMetaTable> TABLES = new ConcurrentHashMap<>();

    private final NavigableMap<MetaRowKey, MetaRow> rows = new TreeMap<>();

    /** A factory for clients of {@code table}, registered under {@code name}. */
    public static MetaTableClientFactory register(String name, InMemoryMetaTable table) {
        TABLES.put(name, table);
        return new Factory(name);
    }

    /** A client of this table (closing it keeps the rows). */
    public MetaTableClient client() {
        return new Client();
    }

    private static final class Factory implements MetaTableClientFactory {
        private static final long serialVersionUID = 1L;
        private final String name;

        Factory(String name) {
            this.name = name;
        }

        @Override
        public MetaTableClient create(TablestoreCdcSourceConfig config) {
            return TABLES.get(name).client();
        }
    }

    private final class Client implements MetaTableClient {

        @Override
        public String tableName() {
            return "in_memory_meta";
        }

        @Override
        public boolean createTableIfMissing() {
            return false;
        }

        @Override
        public PutOutcome putIfAbsent(MetaRow row) {
            synchronized (InMemoryMetaTable.this) {
                return rows.putIfAbsent(row.key(), row) == null
                        ? PutOutcome.WRITTEN
                        : PutOutcome.ALREADY_EXISTS;
            }
        }

        @Override
        public List<PutOutcome> putAllIfAbsent(List<MetaRow> batch) {
            List<PutOutcome> outcomes = new ArrayList<>();
            batch.forEach(row -> outcomes.add(putIfAbsent(row)));
            return outcomes;
        }

        @Override
        public boolean replaceIf(MetaRow row, String column, MetaValue expected) {
            synchronized (InMemoryMetaTable.this) {
                MetaRow current = rows.get(row.key());
                if (current == null || !current.column(column).equals(Optional.of(expected))) {
                    return false;
                }
                rows.put(row.key(), row);
                return true;
            }
        }

        @Override
        public void deleteAll(List<MetaRowKey> keys) {
            synchronized (InMemoryMetaTable.this) {
                keys.forEach(rows::remove);
            }
        }

        @Override
        public Optional<MetaRow> get(MetaRowKey key) {
            synchronized (InMemoryMetaTable.this) {
                return Optional.ofNullable(rows.get(key));
            }
        }

        @Override
        public RangePage readRange(
                String tunnelId, String batch, Optional<String> fromChannelId, int limit) {
            synchronized (InMemoryMetaTable.this) {
                MetaRowKey start = new MetaRowKey(tunnelId, batch, fromChannelId.orElse("\u0000"));
                List<MetaRow> page = new ArrayList<>();
                for (MetaRow row : rows.tailMap(start, true).values()) {
                    if (!row.key().tunnelId().equals(tunnelId)
                            || !row.key().batch().equals(batch)) {
                        break;
                    }
                    if (page.size() == limit) {
                        return new RangePage(page, Optional.of(row.key().channelId()));
                    }
                    page.add(row);
                }
                return new RangePage(page, Optional.empty());
            }
        }

        @Override
        public void close() {}
    }
}
