package io.tablestorecdc.flink.table.tablestore;

import java.util.Collection;
import org.apache.flink.annotation.Internal;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.LookupFunction;

/** Looks rows up on the task thread, one request per key ({@code 'lookup.async' = 'false'}). */
@Internal
public final class TablestoreLookupFunction extends LookupFunction {

    private static final long serialVersionUID = 1L;

    private final TableLookup lookup;

    TablestoreLookupFunction(TableLookup lookup) {
        this.lookup = lookup;
    }

    @Override
    public void open(FunctionContext context) {
        lookup.open(context.getMetricGroup());
    }

    @Override
    public Collection<RowData> lookup(RowData keyRow) {
        return lookup.lookup(keyRow);
    }

    @Override
    public void close() {
        lookup.close();
    }
}
