import type { MigrationInterface, QueryRunner } from 'typeorm';

// An agent's transcript grows a row per message (issue #32): appending to the step's model_messages LONGTEXT
// rewrote the whole transcript each time (and parsed it twice to check it), so a round cost more the longer
// the conversation. A step's messages are now its model_messages (written whole: a prompt, a completed
// step's final transcript) followed by its rows here from that length on. Transcripts in flight need no
// copy: their messages so far are the base, the next ones go here.
export class StepMessages1764005300000 implements MigrationInterface {
  name = 'StepMessages1764005300000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE step_messages (
      instance_uuid CHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
      position INT NOT NULL,
      message LONGTEXT NOT NULL CHECK (JSON_VALID(message)),
      PRIMARY KEY (instance_uuid, position),
      CONSTRAINT fk_step_messages_instance FOREIGN KEY (instance_uuid) REFERENCES workflow_step_instances (uuid) ON DELETE CASCADE
    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE step_messages');
  }
}
