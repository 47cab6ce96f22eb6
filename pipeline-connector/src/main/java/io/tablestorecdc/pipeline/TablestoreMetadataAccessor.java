package io.tablestorecdc.pipeline;

import io.tablestorecdc.checkpoint.settings.SourceSettings;
import io.tablestorecdc.checkpoint.table.SdkTableService;
import java.util.List;
import org.apache.flink.cdc.common.event.TableId;
import org.apache.flink.cdc.common.schema.Schema;
import org.apache.flink.cdc.common.source.MetadataAccessor;

/**
 * The instance as Flink CDC sees it: no namespaces, one schema named as the instance, the selected
 * tables in it, each with the schema the source starts with.
 */
final class TablestoreMetadataAccessor implements MetadataAccessor {

    private final SourceSettings settings;
    private final SchemaSettings schema;

    TablestoreMetadataAccessor(SourceSettings settings, SchemaSettings schema) {
        this.settings = settings;
        this.schema = schema;
    }

    @Override
    public List<String> listNamespaces() {
        return List.of();
    }

    @Override
    public List<String> listSchemas(String namespace) {
        return List.of(settings.instanceName());
    }

    @Override
    public List<TableId> listTables(String namespace, String schemaName) {
        if (schemaName != null && !schemaName.equals(settings.instanceName())) {
            return List.of();
        }
        return settings
                .selectedTables(() -> SdkTableService.listTables(settings.tablestoreEndpoint()))
                .stream()
                .map(table -> TableId.tableId(settings.instanceName(), table))
                .toList();
    }

    @Override
    public Schema getTableSchema(TableId tableId) {
        return schema.columnsOf(settings.tablestoreEndpoint(), tableId.getTableName()).schema();
    }
}
