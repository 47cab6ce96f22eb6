package io.tablestorecdc.flink.source.testing;

import io.tablestorecdc.checkpoint.meta.MetaTableClient;
import io.tablestorecdc.checkpoint.testing.InMemoryMetaTableClient;
import io.tablestorecdc.flink.source.MetaTableClientFactory;
import io.tablestorecdc.flink.source.config.TablestoreCdcSourceConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * In-memory meta tables found by name, so that the serializable factory a source carries reaches
 * the test's table: every enumerator a test opens shares it.
 */
public final class InMemoryMetaTables {

    private static final Map<String, InMemoryMetaTableClient> TABLES = new ConcurrentHashMap<>();

    private InMemoryMetaTables() {}

    /** A factory whose clients are {@code table} (closing one keeps the rows). */
    public static MetaTableClientFactory register(String name, InMemoryMetaTableClient table) {
        TABLES.put(name, table);
        return new Factory(name);
    }

    private static final class Factory implements MetaTableClientFactory {
        private static final long serialVersionUID = 1L;
        private final String name;

        Factory(String name) {
            this.name = name;
        }

        @Override
        public MetaTableClient create(TablestoreCdcSourceConfig config) {
            return TABLES.get(name);
        }
    }
}
