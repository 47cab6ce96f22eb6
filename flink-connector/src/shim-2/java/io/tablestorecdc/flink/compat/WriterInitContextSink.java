package io.tablestorecdc.flink.compat;

import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * A Sink V2 whose writers are created from a {@link WriterInitContext}. This is the Flink 2.x
 * variant, where that is the only way: it adds nothing to {@link Sink}. (The Flink 1.20 variant
 * closes the deprecated {@code createWriter(Sink.InitContext)}, which Flink 2.x removed.)
 *
 * @param <IN> the sink's input type
 */
@Internal
public abstract class WriterInitContextSink<IN> implements Sink<IN> {

    private static final long serialVersionUID = 1L;

    @Override
    public abstract SinkWriter<IN> createWriter(WriterInitContext context) throws IOException;
}
