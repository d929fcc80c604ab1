import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { tableDefinition } from '../../shared/db/table';

/** Options of the service table. */
export interface ServiceTableProps {
  /** Production: deletion protection on and the table retained when the stack goes. */
  production: boolean;
}

/**
 * The single DynamoDB table of the service, built from `tableDefinition` (the same data the
 * local runtime creates DynamoDB Local's table from): string PK/SK, its GSIs, the TTL
 * attribute, the stream (both images), on-demand billing, point-in-time recovery and encryption at rest.
 */
export class ServiceTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: ServiceTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      stream: StreamViewType[tableDefinition.streamView],
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The AWS owned key is the default; the AWS managed key shows up in CloudTrail.
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: props.production,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: index.projection === 'ALL' ? ProjectionType.ALL : ProjectionType.KEYS_ONLY,
      });
    }
  }
}
