"""Training a small Spark2_5 policy on demonstrations: the model, the data, `phone-agent train`."""
