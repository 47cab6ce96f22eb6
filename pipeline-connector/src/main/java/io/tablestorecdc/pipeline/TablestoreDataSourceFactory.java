package io.tablestorecdc.pipeline;

import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.settings.SourceSettings;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.cdc.common.configuration.ConfigOption;
import org.apache.flink.cdc.common.configuration.Configuration;
import org.apache.flink.cdc.common.factories.DataSourceFactory;
import org.apache.flink.cdc.common.factories.FactoryHelper;
import org.apache.flink.cdc.common.source.DataSource;

/**
 * {@code source: type: tablestore} in a Flink CDC pipeline: the options are checked here, the
 * shared ones by the core as for the other sources (so a bad value reads the same everywhere); see
 * docs/pipeline.md.
 */
@Internal
public final class TablestoreDataSourceFactory implements DataSourceFactory {

    /** The pipeline source type; a public contract. */
    public static final String IDENTIFIER = "tablestore";

    @Override
    public String identifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return PipelineOptions.required();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return PipelineOptions.optional();
    }

    @Override
    public DataSource createDataSource(Context context) {
        FactoryHelper.createFactoryHelper(this, context)
                .validateExcept(PipelineOptions.SCHEMA_COLUMNS_PREFIX);
        Configuration options = context.getFactoryConfiguration();
        Map<String, String> shared = new HashMap<>();
        options.toMap()
                .forEach(
                        (key, value) -> {
                            if (PipelineOptions.RENAMED.containsKey(key)) {
                                shared.put(PipelineOptions.RENAMED.get(key), value);
                            } else if (SourceOption.byKey(key).isPresent()) {
                                shared.put(key, value);
                            }
                        });
        SourceSettings settings =
                SourceSettings.parse(
                        shared,
                        key -> "add '" + pipelineKey(key) + ": ...' to the pipeline's source block",
                        "the pipeline source '" + IDENTIFIER + "'",
                        "docs/pipeline.md");
        return new TablestoreDataSource(
                settings,
                SchemaSettings.parse(options),
                new TablestoreDataSource.Intervals(
                        options.get(PipelineOptions.DISCOVERY_INTERVAL),
                        options.get(PipelineOptions.HEARTBEAT_INTERVAL),
                        options.get(PipelineOptions.HEARTBEAT_TIMEOUT)));
    }

    /** The key a shared option has in a pipeline ({@code tables} for the core's pattern). */
    private static String pipelineKey(String key) {
        for (Map.Entry<String, String> renamed : PipelineOptions.RENAMED.entrySet()) {
            if (renamed.getValue().equals(key)) {
                return renamed.getKey();
            }
        }
        return key.equals(SourceOption.TABLE_NAME.key()) ? PipelineOptions.TABLES.key() : key;
    }
}
